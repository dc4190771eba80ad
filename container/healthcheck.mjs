// The image's health check: GET /_stub/health on the stub's own port. A stub started with TLS
// answers plain HTTP with 400 https_required; then the same over HTTPS. The certificate is
// not checked: this asks whether the process inside this container answers on loopback, and
// the stub's CA may be one it made a moment ago.
import { get as httpGet } from 'node:http';
import { get as httpsGet } from 'node:https';

const options = {
  host: '127.0.0.1',
  port: process.env.BADGE_SIM_PORT ?? 8080,
  path: '/_stub/health',
  timeout: 2_500,
  rejectUnauthorized: false,
};

function status(get) {
  return new Promise((resolve) => {
    const request = get(options, (response) => {
      response.resume();
      resolve(response.statusCode);
    });
    request.on('timeout', () => request.destroy());
    request.on('error', () => resolve(0));
  });
}

let answer = await status(httpGet);
if (answer === 400) answer = await status(httpsGet);
process.exit(answer === 200 ? 0 : 1);
