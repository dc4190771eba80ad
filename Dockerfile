# The stub of the service as a container: both interfaces, the device WebSocket and the
# control API on one port (8080). Configure it with BADGE_SIM_* variables (every option of
# `badge-sim stub --help`), mount fixtures and point BADGE_SIM_FIXTURES at them:
#
#   npm run build && docker build -t badge-sim .      (in an installed package: dist/ is there)
#   docker run --rm -p 127.0.0.1:8080:8080 -v "$PWD/team.fixtures.yaml:/fixtures/team.yaml:ro" \
#     -e BADGE_SIM_FIXTURES=/fixtures/team.yaml -e BADGE_SIM_CLOCK=virtual badge-sim
#
# HTTPS only, with a CA kept in a mounted folder that the image's user (node, uid 1000) can
# write; its ca.pem is what clients trust, start after start:
#
#   docker run --rm -p 127.0.0.1:8443:8080 -v "$PWD/tls:/tls" -e BADGE_SIM_TLS=true \
#     -e BADGE_SIM_TLS_DIR=/tls -e BADGE_SIM_TLS_NAMES=localhost badge-sim
#
# Where no registry is reachable, build the base from local parts first
# (container/build-local-base.sh) and pass --build-arg NODE_IMAGE=badge-sim/node-base:local.
ARG NODE_IMAGE=node:20-bookworm-slim
FROM ${NODE_IMAGE}

WORKDIR /app
ENV NODE_ENV=production
# A stub left running for days: glibc keeps fewer malloc arenas, so memory freed by a reset
# or by retention goes back instead of staying in RSS (docs/decisions.md H9).
ENV MALLOC_ARENA_MAX=2
# The lock file when there is one (a packed package has none).
COPY package*.json ./
RUN npm install --omit=dev --ignore-scripts --no-audit --no-fund --no-update-notifier \
    --loglevel=error \
  && npm cache clean --force --loglevel=error
# The compiled package (`npm run build` writes dist/; an installed package has it already):
# plain JavaScript, no TypeScript loader at start. bin/ is the command users run: the image
# starts the stub the same way (the bundled command, its crash traces mapped, Q13).
COPY dist ./dist
COPY bin ./bin

# Listen on every interface of the container; the host decides what to publish.
ENV BADGE_SIM_HOST=0.0.0.0 \
    BADGE_SIM_PORT=8080
EXPOSE 8080
USER node
# GET /_stub/health, over HTTPS when the stub serves TLS (BADGE_SIM_TLS).
HEALTHCHECK --interval=5s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "dist/container/healthcheck.mjs"]
# node is PID 1 and stops the stub cleanly on SIGTERM (docker stop).
STOPSIGNAL SIGTERM
ENTRYPOINT ["node", "bin/badge-sim.js", "stub"]
