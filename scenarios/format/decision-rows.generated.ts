// Written by `npm run schema` from docs/decisions.md: do not edit.
export const DECISION_ROWS: readonly { id: string; case: string }[] = [
  {
    "id": "A1",
    "case": "Error body shape"
  },
  {
    "id": "A2",
    "case": "Missing Authorization"
  },
  {
    "id": "A3",
    "case": "Other scheme word, or no key after it"
  },
  {
    "id": "A4",
    "case": "Unknown key"
  },
  {
    "id": "A5",
    "case": "Valid key of another account, or a subscriber id that does not exist"
  },
  {
    "id": "A6",
    "case": "Secrets in logs"
  },
  {
    "id": "A7",
    "case": "Unknown path"
  },
  {
    "id": "B1",
    "case": "Wrong types"
  },
  {
    "id": "B2",
    "case": "Missing required field"
  },
  {
    "id": "B3",
    "case": "Empty notification, empty groups, empty group string"
  },
  {
    "id": "B4",
    "case": "Fields the spec does not list (quorom)"
  },
  {
    "id": "B5",
    "case": "quorum"
  },
  {
    "id": "B6",
    "case": "timeout"
  },
  {
    "id": "B7",
    "case": "Text limits"
  },
  {
    "id": "B8",
    "case": "Not JSON"
  },
  {
    "id": "B9",
    "case": "Content-Type: application/json with an empty body (common on DELETE)"
  },
  {
    "id": "G1",
    "case": "URN form"
  },
  {
    "id": "G2",
    "case": "Unknown group, another account's group, malformed URN"
  },
  {
    "id": "G3",
    "case": "A device in several named groups"
  },
  {
    "id": "G4",
    "case": "A group whose devices have no badge connected"
  },
  {
    "id": "G5",
    "case": "The word in group URNs"
  },
  {
    "id": "G6",
    "case": "A group with no members in fixtures (members: [])"
  },
  {
    "id": "G7",
    "case": "Generated fixtures (--generate, POST /_stub/fixtures/generate, a scenario's gen…"
  },
  {
    "id": "G8",
    "case": "A fixtures update (PUT /_stub/fixtures, which replaces the whole document) that…"
  },
  {
    "id": "L1",
    "case": "A repeat and the timeout at the same instant"
  },
  {
    "id": "L1a",
    "case": "An alert queued behind another of its name, released at the very instant it tim…"
  },
  {
    "id": "L2",
    "case": "end.status on timeout and quorum"
  },
  {
    "id": "L3",
    "case": "Events of a cancel (DELETE)"
  },
  {
    "id": "L4",
    "case": "DELETE answer"
  },
  {
    "id": "L5",
    "case": "Second acknowledgement by a device"
  },
  {
    "id": "L6",
    "case": "Acknowledgement after the end"
  },
  {
    "id": "L7",
    "case": "name: serial or concurrent alerting"
  },
  {
    "id": "L8",
    "case": "Acknowledging an alert still queued on the device"
  },
  {
    "id": "L9",
    "case": "A tap while several alerts play (different names)"
  },
  {
    "id": "L10",
    "case": "on_quorum/on_timeout and devices where the alert was still queued"
  },
  {
    "id": "L11",
    "case": "timed_out when some devices acknowledged"
  },
  {
    "id": "R1",
    "case": "Response"
  },
  {
    "id": "R2",
    "case": "Events"
  },
  {
    "id": "V1",
    "case": "Order"
  },
  {
    "id": "V2",
    "case": "limit"
  },
  {
    "id": "V3",
    "case": "oldest"
  },
  {
    "id": "V4",
    "case": "Retention"
  },
  {
    "id": "V5",
    "case": "Unknown query parameters"
  },
  {
    "id": "V6",
    "case": "Identifiers and time"
  },
  {
    "id": "V7",
    "case": "task.task_type"
  },
  {
    "id": "V8",
    "case": "Events of a busy account"
  },
  {
    "id": "K1",
    "case": "Reset"
  },
  {
    "id": "K2",
    "case": "Switching to real or scaled time"
  },
  {
    "id": "K3",
    "case": "badge-sim stub clock"
  },
  {
    "id": "K4",
    "case": "A reset while an advance is under way (badges still answering)"
  },
  {
    "id": "D1",
    "case": "A device of a named group that is not connected"
  },
  {
    "id": "D2",
    "case": "Plays while a badge is offline"
  },
  {
    "id": "D3",
    "case": "A badge connects (or reconnects) while an alert for it is on"
  },
  {
    "id": "D4",
    "case": "Which taps acknowledge"
  },
  {
    "id": "D5",
    "case": "What a tap acknowledges"
  },
  {
    "id": "D6",
    "case": "The same device connects twice"
  },
  {
    "id": "D7",
    "case": "A device with no key in the fixtures"
  },
  {
    "id": "D8",
    "case": "Bad frames"
  },
  {
    "id": "D9",
    "case": "\"Acknowledge after\" a delay that falls while the badge is offline"
  },
  {
    "id": "D10",
    "case": "Play time of a clip"
  },
  {
    "id": "D11",
    "case": "What a tap acknowledges when several alerts are open (the spec is silent)"
  },
  {
    "id": "D12",
    "case": "When a fan-out is written to the badges"
  },
  {
    "id": "D13",
    "case": "Two fleets (shards, processes, machines) name one device"
  },
  {
    "id": "D14",
    "case": "When the engine reaches the devices of a large alert or broadcast"
  },
  {
    "id": "D15",
    "case": "How a badge learns of a tap made for it through the control API (POST /_stub/de…"
  },
  {
    "id": "D16",
    "case": "Where a virtual badge is when it connects (the spec shows a location with a tim…"
  },
  {
    "id": "D17",
    "case": "A machine-readable device protocol"
  },
  {
    "id": "D18",
    "case": "When a badge sends its state reports in real and scaled time (telemetry: the st…"
  },
  {
    "id": "T1",
    "case": "Where the environments live"
  },
  {
    "id": "T2",
    "case": "Client ids"
  },
  {
    "id": "T3",
    "case": "Token request bodies"
  },
  {
    "id": "T4",
    "case": "Token errors"
  },
  {
    "id": "T5",
    "case": "Token answer"
  },
  {
    "id": "T6",
    "case": "The firewall"
  },
  {
    "id": "T7",
    "case": "Bearer refusals"
  },
  {
    "id": "T8",
    "case": "subscriber_id"
  },
  {
    "id": "T9",
    "case": "Unknown workflow, non-HTTP workflow, wrong trigger method"
  },
  {
    "id": "T10",
    "case": "Unknown device, another account's device, unknown target"
  },
  {
    "id": "T11",
    "case": "What an invocation does"
  },
  {
    "id": "T12",
    "case": "Device info fields"
  },
  {
    "id": "T13",
    "case": "Refresh tokens"
  },
  {
    "id": "T14",
    "case": "The analytics listing's columns"
  },
  {
    "id": "T15",
    "case": "Expiring tokens in a scenario"
  },
  {
    "id": "T16",
    "case": "What a scenario can assert of the trigger interface"
  },
  {
    "id": "T17",
    "case": "The /_stub/settings route"
  },
  {
    "id": "T18",
    "case": "GET {auth_url}/oauth2/validate"
  },
  {
    "id": "T19",
    "case": "Tokens oauth2/validate refuses"
  },
  {
    "id": "T20",
    "case": "The firewall and oauth2/validate"
  },
  {
    "id": "T21",
    "case": "The user of a refresh token"
  },
  {
    "id": "T22",
    "case": "expires_in of oauth2/validate"
  },
  {
    "id": "T23",
    "case": "TriggerClient and oauth2/validate"
  },
  {
    "id": "T24",
    "case": "Where client ids come from"
  },
  {
    "id": "T25",
    "case": "A client id no environment knows"
  },
  {
    "id": "X1",
    "case": "The image's clock"
  },
  {
    "id": "X2",
    "case": "Port and interface"
  },
  {
    "id": "X3",
    "case": "Configuration"
  },
  {
    "id": "X4",
    "case": "Ready, health, stop"
  },
  {
    "id": "X5",
    "case": "The contract suite's scope"
  },
  {
    "id": "X6",
    "case": "A request without User-Agent from Node"
  },
  {
    "id": "F1",
    "case": "Reconnect delays"
  },
  {
    "id": "F2",
    "case": "Which closes reconnect"
  },
  {
    "id": "F3",
    "case": "What a reconnect resumes"
  },
  {
    "id": "F4",
    "case": "Settle accounting across a drop"
  },
  {
    "id": "F5",
    "case": "What a fleet says of its connections"
  },
  {
    "id": "F6",
    "case": "badge-sim devices while the stub is down"
  },
  {
    "id": "F7",
    "case": "Start-up when the stub is not up yet"
  },
  {
    "id": "F8",
    "case": "Closing during a backoff"
  },
  {
    "id": "F9",
    "case": "A badge timer due at the very instant its fleet is at, against a stub in anothe…"
  },
  {
    "id": "F10",
    "case": "A stub that takes a badge's connection but never answers its WebSocket upgrade…"
  },
  {
    "id": "F11",
    "case": "The stub lost while waitUntilConnected settles (killed just after an alert went…"
  },
  {
    "id": "U1",
    "case": "Ids without a seed"
  },
  {
    "id": "U2",
    "case": "A reset without a seed"
  },
  {
    "id": "U3",
    "case": "Tokens after a reset, with a seed"
  },
  {
    "id": "U4",
    "case": "--generate without --seed"
  },
  {
    "id": "U5",
    "case": "The control token's header"
  },
  {
    "id": "U6",
    "case": "What the token guards"
  },
  {
    "id": "U7",
    "case": "Refusal and secrecy"
  },
  {
    "id": "U8",
    "case": "What a token may be"
  },
  {
    "id": "U9",
    "case": "The banner"
  },
  {
    "id": "U10",
    "case": "The container module"
  },
  {
    "id": "U11",
    "case": "Commands and code that drive a stub"
  },
  {
    "id": "U12",
    "case": "Where tokens come from"
  },
  {
    "id": "H1",
    "case": "Ended tasks"
  },
  {
    "id": "H2",
    "case": "The stub's transcripts"
  },
  {
    "id": "H3",
    "case": "Workflow invocations"
  },
  {
    "id": "H4",
    "case": "What a virtual badge heard (the fleet's transcripts) and did (badge.activity)"
  },
  {
    "id": "H5",
    "case": "Events of an account nobody reads"
  },
  {
    "id": "H6",
    "case": "Reset"
  },
  {
    "id": "H7",
    "case": "Issued access and id tokens"
  },
  {
    "id": "H8",
    "case": "What a virtual badge remembers besides clips"
  },
  {
    "id": "H9",
    "case": "RSS of a stub left running, and after a reset"
  },
  {
    "id": "H10",
    "case": "Ended tasks of a busy stub"
  },
  {
    "id": "H11",
    "case": "Memory after POST /_stub/reset"
  },
  {
    "id": "W1",
    "case": "A frame type (or any key) that is a name of Object.prototype: valueOf, __proto_…"
  },
  {
    "id": "W2",
    "case": "Numbers in badge frames"
  },
  {
    "id": "W3",
    "case": "wake.at far ahead or in the past"
  },
  {
    "id": "W4",
    "case": "A connected badge that never answers what it is sent"
  },
  {
    "id": "W5",
    "case": "Telling users the clock went on without a badge"
  },
  {
    "id": "W6",
    "case": "A client that does not read what it is sent"
  },
  {
    "id": "W7",
    "case": "A flood of bad frames"
  },
  {
    "id": "W8",
    "case": "A badge that answers every clock frame with a wake at that frame's now (or a ha…"
  },
  {
    "id": "W9",
    "case": "A badge that reads what it is sent (so never 4008) but never answers, left conn…"
  },
  {
    "id": "W10",
    "case": "The answer bound set far too long, and timer delays past what setTimeout keeps"
  },
  {
    "id": "W11",
    "case": "Which error frames say which frame they answer"
  },
  {
    "id": "W12",
    "case": "What a later advance says of a badge that stays unresponsive"
  },
  {
    "id": "I1",
    "case": "Numbers from outside (bodies, query, path, fixtures)"
  },
  {
    "id": "I2",
    "case": "Numbers in a query string or path"
  },
  {
    "id": "I3",
    "case": "Durations"
  },
  {
    "id": "I4",
    "case": "How far the clock goes"
  },
  {
    "id": "I5",
    "case": "Nesting of JSON bodies"
  },
  {
    "id": "I6",
    "case": "Size of stored free-form JSON"
  },
  {
    "id": "I7",
    "case": "Generated fixtures"
  },
  {
    "id": "I8",
    "case": "A __proto__ key in a JSON body"
  },
  {
    "id": "I9",
    "case": "Slow or silent HTTP clients, and slow answers"
  },
  {
    "id": "I10",
    "case": "Names every object inherits (__proto__, constructor, toString, valueOf, hasOwnP…"
  },
  {
    "id": "I11",
    "case": "Refusals that fastify answers itself, and fields with no name"
  },
  {
    "id": "I12",
    "case": "What the fuzz test holds to"
  },
  {
    "id": "I13",
    "case": "Fractional virtual time"
  },
  {
    "id": "I14",
    "case": "A token-endpoint field of the wrong type"
  },
  {
    "id": "I15",
    "case": "badge-sim stub cannot listen"
  },
  {
    "id": "I16",
    "case": "--scale of badge-sim stub"
  },
  {
    "id": "I17",
    "case": "A YAML/JSON document the parser gives up on (an alias bomb: eight levels of &a…"
  },
  {
    "id": "I18",
    "case": "A flaky badge's every"
  },
  {
    "id": "I19",
    "case": "What Node's HTTP parser refuses before a route sees the request"
  },
  {
    "id": "I20",
    "case": "A request with an Upgrade header on any path but the badges' (curl --http2 send…"
  },
  {
    "id": "I21",
    "case": "How an error names a field, wherever it comes from (HTTP bodies and query strin…"
  },
  {
    "id": "I22",
    "case": "A value outside a choice of words (mode: fast, type=valueOf, advance=maybe)"
  },
  {
    "id": "J1",
    "case": "The fields of GET …/api/v1/device/{device_id}"
  },
  {
    "id": "J2",
    "case": "Where a value comes from; generated values"
  },
  {
    "id": "J3",
    "case": "Readings only a badge makes (battery, location)"
  },
  {
    "id": "J4",
    "case": "Timestamps in device info"
  },
  {
    "id": "J5",
    "case": "The network of an offline badge"
  },
  {
    "id": "J6",
    "case": "Groups, channels and the active channel"
  },
  {
    "id": "J7",
    "case": "What the stub does not model"
  },
  {
    "id": "J8",
    "case": "Fixture fields of device info, and bad ones"
  },
  {
    "id": "O1",
    "case": "Which statuses an operation lists, and where they are declared"
  },
  {
    "id": "O2",
    "case": "5xx"
  },
  {
    "id": "O3",
    "case": "One document or two; credentials"
  },
  {
    "id": "O4",
    "case": "Response schemas and what is written"
  },
  {
    "id": "O5",
    "case": "Parameters and bodies that a handler checks itself (token, workflow, device inf…"
  },
  {
    "id": "O6",
    "case": "A path parameter over 100 characters (fastify's router limit)"
  },
  {
    "id": "O7",
    "case": "A method a path does not have"
  },
  {
    "id": "O8",
    "case": "What the conformance test sends"
  },
  {
    "id": "P1",
    "case": "Sub-millisecond instants (the real and scaled clocks, a virtual clock advanced…"
  },
  {
    "id": "P2",
    "case": "Instants a double cannot hold to the microsecond"
  },
  {
    "id": "P3",
    "case": "oldest with more than six fraction digits (up to nine; more is 400 naming oldes…"
  },
  {
    "id": "P4",
    "case": "Listing more than a page (ServiceClient.allEvents: badge-sim analytics, scenari…"
  },
  {
    "id": "P5",
    "case": "POST /_stub/clock/advance {to} with digits past the millisecond"
  },
  {
    "id": "P6",
    "case": "A task's times and its events' on a running clock"
  },
  {
    "id": "N1",
    "case": "HTTP and HTTPS at once?"
  },
  {
    "id": "N2",
    "case": "The certificate the stub issues"
  },
  {
    "id": "N3",
    "case": "Where the CA file is"
  },
  {
    "id": "N4",
    "case": "Is a CA reused across restarts?"
  },
  {
    "id": "N5",
    "case": "A certificate the team gives"
  },
  {
    "id": "N6",
    "case": "How badge-sim's own connections trust the stub's CA"
  },
  {
    "id": "N7",
    "case": "Slow clients under TLS"
  },
  {
    "id": "N8",
    "case": "The container with TLS"
  },
  {
    "id": "N9",
    "case": "Private keys and logs"
  },
  {
    "id": "N10",
    "case": "A --tls-dir that cannot be made (/proc/x, a file on the way, no permission)"
  },
  {
    "id": "N11",
    "case": "A --tls-cert, --tls-key or --tls-ca that never ends (/dev/zero) or is huge"
  },
  {
    "id": "Q1",
    "case": "How the package is built"
  },
  {
    "id": "Q2",
    "case": "Where source maps point"
  },
  {
    "id": "Q3",
    "case": "CommonJS"
  },
  {
    "id": "Q4",
    "case": "What the badge-sim command runs"
  },
  {
    "id": "Q5",
    "case": "The image"
  },
  {
    "id": "Q6",
    "case": "How the consumer tests install the tarball without a registry"
  },
  {
    "id": "Q7",
    "case": "What the TypeScript consumer proves"
  },
  {
    "id": "Q8",
    "case": "Where the public types are"
  },
  {
    "id": "Q9",
    "case": "What counts as leaking, and what leaked"
  },
  {
    "id": "Q10",
    "case": "How the tarball's types and manifest are linted"
  },
  {
    "id": "Q11",
    "case": "Which README examples must compile"
  },
  {
    "id": "Q12",
    "case": "Where badge-sim --version comes from"
  },
  {
    "id": "Q13",
    "case": "Source maps in the installed command"
  },
  {
    "id": "Q14",
    "case": "Jest"
  },
  {
    "id": "Q15",
    "case": "What a command loads"
  },
  {
    "id": "Q16",
    "case": "Validators compiled at build time"
  },
  {
    "id": "Q17",
    "case": "Serializers written at build time"
  },
  {
    "id": "Q18",
    "case": "How the installed run and stub load their code"
  },
  {
    "id": "Q19",
    "case": "The default fixtures read at build time"
  },
  {
    "id": "Y1",
    "case": "Which paths are patterns, and their syntax"
  },
  {
    "id": "Y2",
    "case": "Characters the JUnit report cannot carry"
  },
  {
    "id": "Y3",
    "case": "One seeded generator or two"
  },
  {
    "id": "Y4",
    "case": "Stub settings a scenario needs"
  },
  {
    "id": "Y5",
    "case": "How a mistake in a scenario is told"
  },
  {
    "id": "Y6",
    "case": "What run says of a report file, and how a report says to run a scenario again"
  },
  {
    "id": "Y7",
    "case": "A fixtures file a scenario names"
  },
  {
    "id": "Y8",
    "case": "What badge-sim init writes, and over what"
  },
  {
    "id": "Y9",
    "case": "What run --watch watches, reruns and exits with"
  },
  {
    "id": "Y10",
    "case": "What run --verbose says of a step"
  },
  {
    "id": "SH1",
    "case": "Which scenarios a shard runs"
  },
  {
    "id": "SH2",
    "case": "Merging the shards' reports"
  },
  {
    "id": "CV1",
    "case": "What run --coverage counts of the badge machine"
  },
  {
    "id": "CV2",
    "case": "What run --coverage counts of the alert model"
  },
  {
    "id": "CV3",
    "case": "How a scenario says which rows of this file it exercises"
  },
  {
    "id": "CV4",
    "case": "Which scenarios touch a row, and out of what"
  },
  {
    "id": "CV5",
    "case": "Coverage of merged shards"
  },
  {
    "id": "CV6",
    "case": "Where coverage is said"
  },
  {
    "id": "AW1",
    "case": "An event recorded before the wait"
  },
  {
    "id": "AW2",
    "case": "What the filters match"
  },
  {
    "id": "AW3",
    "case": "How long a wait lasts"
  },
  {
    "id": "AW4",
    "case": "advance=true"
  },
  {
    "id": "AW5",
    "case": "How far an advance goes"
  },
  {
    "id": "AW6",
    "case": "A client that goes away mid-wait"
  },
  {
    "id": "AW7",
    "case": "A locked control API"
  },
  {
    "id": "AW8",
    "case": "The answer, and where it is offered"
  },
  {
    "id": "HF1",
    "case": "What a fault does"
  },
  {
    "id": "HF2",
    "case": "Several faults match a request"
  },
  {
    "id": "HF3",
    "case": "How many faults are kept"
  },
  {
    "id": "HF4",
    "case": "Fault ids"
  },
  {
    "id": "HF5",
    "case": "Latency and stall durations"
  },
  {
    "id": "HF6",
    "case": "probability"
  },
  {
    "id": "HF7",
    "case": "Which requests a fault sees"
  },
  {
    "id": "HF8",
    "case": "account"
  },
  {
    "id": "HF9",
    "case": "What a status fault answers"
  },
  {
    "id": "HF10",
    "case": "A time window"
  },
  {
    "id": "HF11",
    "case": "A fault never changes stored state unless the request was let through"
  },
  {
    "id": "HF12",
    "case": "retry: on a scenario's request step"
  },
  {
    "id": "HF13",
    "case": "fault: and clear_fault: steps"
  },
  {
    "id": "HF14",
    "case": "Faults from code"
  },
  {
    "id": "HF15",
    "case": "The body of a request a status fault answers"
  },
  {
    "id": "HO1",
    "case": "A hello for a device whose connection the stub still holds"
  },
  {
    "id": "HO2",
    "case": "What the replaced connection leaves behind"
  },
  {
    "id": "HO3",
    "case": "While the badge is gone and the stub does not know"
  },
  {
    "id": "HO4",
    "case": "The vanish fault of a virtual badge"
  },
  {
    "id": "HO5",
    "case": "GET /_stub/devices/{device_id}/await"
  },
  {
    "id": "HO6",
    "case": "How many waits, and what ends them"
  },
  {
    "id": "HO7",
    "case": "The offline step's wait"
  },
  {
    "id": "RJ1",
    "case": "Which requests are journalled"
  },
  {
    "id": "RJ2",
    "case": "When an entry is made, and its order"
  },
  {
    "id": "RJ3",
    "case": "How much is kept"
  },
  {
    "id": "RJ4",
    "case": "Large bodies and answers, and when the work is done"
  },
  {
    "id": "RJ5",
    "case": "Secrets"
  },
  {
    "id": "RJ6",
    "case": "Which headers"
  },
  {
    "id": "RJ7",
    "case": "account"
  },
  {
    "id": "RJ8",
    "case": "The body of a request refused on its headers"
  },
  {
    "id": "RJ9",
    "case": "Ids, since and paging"
  },
  {
    "id": "RJ10",
    "case": "Filters and bad ones"
  },
  {
    "id": "RJ11",
    "case": "Emptying it"
  },
  {
    "id": "RJ12",
    "case": "requests: and toHaveReceived"
  },
  {
    "id": "DF1",
    "case": "Which taps a tap fault hits"
  },
  {
    "id": "DF2",
    "case": "A lost tap"
  },
  {
    "id": "DF3",
    "case": "A duplicated tap"
  },
  {
    "id": "DF4",
    "case": "A delayed tap, and how many may wait"
  },
  {
    "id": "DF5",
    "case": "A drop mid-play"
  },
  {
    "id": "DF6",
    "case": "What \"low battery\" means, and whether the badge says so"
  },
  {
    "id": "DF7",
    "case": "How a battery drains"
  },
  {
    "id": "DF8",
    "case": "Reading what a badge reported"
  },
  {
    "id": "DF9",
    "case": "Refused values"
  },
  {
    "id": "DF10",
    "case": "Where fault draws come from"
  },
  {
    "id": "FB1",
    "case": "How much an export may be"
  },
  {
    "id": "FB2",
    "case": "The analytics table has no event id and no end status"
  },
  {
    "id": "FB3",
    "case": "Which alert body sent belongs to which alert"
  },
  {
    "id": "FB4",
    "case": "What the events do not tell"
  },
  {
    "id": "FB5",
    "case": "When two histories match"
  },
  {
    "id": "FB6",
    "case": "Overlapping and unordered pages"
  },
  {
    "id": "FB7",
    "case": "What a badge \"was hearing\" in the sentence"
  },
  {
    "id": "FB8",
    "case": "Naming alerts (ids abstracted)"
  },
  {
    "id": "FB9",
    "case": "An alert whose start is not in the export (it began before the first page)"
  },
  {
    "id": "FB10",
    "case": "An end with status normal and no acknowledgement at that instant"
  },
  {
    "id": "FB11",
    "case": "What --search tries, and in what order"
  },
  {
    "id": "FB12",
    "case": "Group URNs sent with another brand word"
  },
  {
    "id": "FB13",
    "case": "Steps the stub would refuse"
  },
  {
    "id": "RS1",
    "case": "What is recorded, and when"
  },
  {
    "id": "RS2",
    "case": "How much is kept"
  },
  {
    "id": "RS3",
    "case": "Secrets"
  },
  {
    "id": "RS4",
    "case": "Starts, resets, fixture loads"
  },
  {
    "id": "RS5",
    "case": "The file of --record"
  },
  {
    "id": "RS6",
    "case": "Requests as steps"
  },
  {
    "id": "RS7",
    "case": "Badges, taps and drops"
  },
  {
    "id": "RS8",
    "case": "Expectations"
  },
  {
    "id": "RS9",
    "case": "Settings a recording keeps"
  },
  {
    "id": "RS10",
    "case": "A bad recording"
  },
  {
    "id": "RS11",
    "case": "When each step and event is, on a running clock"
  },
  {
    "id": "RS12",
    "case": "What record writes"
  },
  {
    "id": "RS13",
    "case": "A recording with something missing"
  },
  {
    "id": "RS14",
    "case": "Disconnects, the last ones too"
  },
  {
    "id": "RS15",
    "case": "What a refusal is expected to say"
  },
  {
    "id": "RS16",
    "case": "Which fixtures the scenario keeps"
  },
  {
    "id": "RS17",
    "case": "What each badge heard"
  },
  {
    "id": "HR1",
    "case": "A suite of hundreds of scenarios"
  },
  {
    "id": "HR2",
    "case": "Self-contained, air-gapped, hostile text"
  },
  {
    "id": "HR3",
    "case": "What a badge's lane shows"
  },
  {
    "id": "HR4",
    "case": "Alert markers"
  },
  {
    "id": "HR5",
    "case": "The first difference on the timeline"
  },
  {
    "id": "HR6",
    "case": "Wall-clock time in a report"
  },
  {
    "id": "HR7",
    "case": "The report from vitest"
  },
  {
    "id": "UI16",
    "case": "The report's timeline, laid out"
  },
  {
    "id": "UI1",
    "case": "What the stream sends"
  },
  {
    "id": "UI2",
    "case": "A client that reads slowly or never"
  },
  {
    "id": "UI3",
    "case": "The control token and the page"
  },
  {
    "id": "UI4",
    "case": "What a device \"plays or says now\""
  },
  {
    "id": "UI5",
    "case": "--badges"
  },
  {
    "id": "UI6",
    "case": "Taking a badge offline from the page"
  },
  {
    "id": "UI7",
    "case": "Talk, Send and Cancel"
  },
  {
    "id": "UI8",
    "case": "Nothing from elsewhere"
  },
  {
    "id": "UI9",
    "case": "1,000 badges, a phone"
  },
  {
    "id": "UI10",
    "case": "Names from fixtures and events"
  },
  {
    "id": "UI11",
    "case": "The timeline"
  },
  {
    "id": "UI12",
    "case": "Every play, broadcast and speech is told"
  },
  {
    "id": "UI13",
    "case": "A badge that is offline"
  },
  {
    "id": "UI14",
    "case": "A card with nothing playing"
  },
  {
    "id": "UI15",
    "case": "Account names"
  },
  {
    "id": "UI17",
    "case": "Every going offline and coming back is told and kept"
  },
  {
    "id": "UX1",
    "case": "Where a badge is, on its card (the contract's device info has lat, long, accura…"
  },
  {
    "id": "MB1",
    "case": "Timers of different alerts due at one instant (a repeat of one, the timeout of…"
  },
  {
    "id": "MB2",
    "case": "A badge back online with alerts of several names playing"
  },
  {
    "id": "MB3",
    "case": "How much generate enumerates"
  },
  {
    "id": "MB4",
    "case": "Which paths generate writes"
  },
  {
    "id": "MB5",
    "case": "What a generated scenario expects"
  },
  {
    "id": "MB6",
    "case": "How the property tests run"
  },
  {
    "id": "SC1",
    "case": "A fleet that should use several cores"
  },
  {
    "id": "SC2",
    "case": "More badges than a process may open sockets (ulimit -n)"
  },
  {
    "id": "SC3",
    "case": "Thousands of badges connecting at once"
  },
  {
    "id": "SC4",
    "case": "A badge without an xstate actor"
  },
  {
    "id": "SC5",
    "case": "How a badge's machine is stepped"
  },
  {
    "id": "SP1",
    "case": "A stub for each scenario in process"
  },
  {
    "id": "SP2",
    "case": "A badge that vanishes in the same process as its stub"
  },
  {
    "id": "SP3",
    "case": "A scenario whose point is a real-time wait"
  },
  {
    "id": "SP4",
    "case": "How the runner's clients send to a stub in its own process on its port (a --rea…"
  },
  {
    "id": "SP5",
    "case": "How a scenario's badges reach a stub in the same process"
  },
  {
    "id": "SP6",
    "case": "How the runner's clients send to a stub in the same process"
  },
  {
    "id": "FS1",
    "case": "What a fleet's snapshot is"
  },
  {
    "id": "FS2",
    "case": "What a badge's entry holds"
  },
  {
    "id": "FS3",
    "case": "How a badge machine is saved and restored"
  },
  {
    "id": "FS4",
    "case": "In what order restored timers fire"
  },
  {
    "id": "FS5",
    "case": "A behaviour's state"
  },
  {
    "id": "FS6",
    "case": "How a restored badge goes back on the network"
  },
  {
    "id": "FS7",
    "case": "Which options a restore takes from the snapshot"
  },
  {
    "id": "FS8",
    "case": "A snapshot that is not one"
  },
  {
    "id": "FS9",
    "case": "The snapshot's type in the package"
  },
  {
    "id": "FS10",
    "case": "A fleet over worker threads"
  },
  {
    "id": "FS11",
    "case": "A stub's clock behind the snapshot's instant"
  },
  {
    "id": "FS12",
    "case": "What a snapshot costs"
  },
  {
    "id": "WS1",
    "case": "What a snapshot promises"
  },
  {
    "id": "WS2",
    "case": "Its format"
  },
  {
    "id": "WS3",
    "case": "What it holds"
  },
  {
    "id": "WS4",
    "case": "Seeded generators"
  },
  {
    "id": "WS5",
    "case": "Tokens"
  },
  {
    "id": "WS6",
    "case": "Secrets"
  },
  {
    "id": "WS7",
    "case": "The journal and the recording"
  },
  {
    "id": "WS8",
    "case": "Badges and devices"
  },
  {
    "id": "WS9",
    "case": "Settings"
  },
  {
    "id": "WS10",
    "case": "How large"
  },
  {
    "id": "WS11",
    "case": "How a restore happens"
  },
  {
    "id": "WS12",
    "case": "Timers as data"
  },
  {
    "id": "WS13",
    "case": "Counters with no name"
  },
  {
    "id": "WS14",
    "case": "A snapshot that does not hold together"
  },
  {
    "id": "WS15",
    "case": "A snapshot edited by hand"
  },
  {
    "id": "WS16",
    "case": "A truncated snapshot"
  },
  {
    "id": "WS17",
    "case": "The stub after a refusal"
  },
  {
    "id": "WS18",
    "case": "Starting from a snapshot"
  },
  {
    "id": "WS19",
    "case": "Its compact form"
  },
  {
    "id": "WS20",
    "case": "A scenario's snapshot: step"
  },
  {
    "id": "WS21",
    "case": "A scenario's from: read when it loads"
  },
  {
    "id": "WS22",
    "case": "Where a from: world is restored"
  },
  {
    "id": "WS23",
    "case": "A from: scenario's badges"
  },
  {
    "id": "WS24",
    "case": "The one-file form: a stub with its badges"
  },
  {
    "id": "WS30",
    "case": "What a stub's and a fleet's snapshots promise together"
  },
  {
    "id": "WS31",
    "case": "What badge-sim diff A B compares, and how it says it"
  },
  {
    "id": "WS32",
    "case": "What of a task it compares"
  },
  {
    "id": "WS33",
    "case": "Events only in one world"
  },
  {
    "id": "WS34",
    "case": "Its exit statuses and the files it refuses"
  },
  {
    "id": "WS35",
    "case": "A badge and its stub restored from one snapshot"
  },
  {
    "id": "TR1",
    "case": "Its format"
  },
  {
    "id": "TR2",
    "case": "The recording stopped while a trace is written"
  },
  {
    "id": "TR3",
    "case": "record of a trace"
  },
  {
    "id": "TR4",
    "case": "A trace that cannot be read"
  },
  {
    "id": "TR5",
    "case": "Each badge's transitions"
  },
  {
    "id": "TR6",
    "case": "Each alert's changes"
  },
  {
    "id": "TR7",
    "case": "Secrets"
  },
  {
    "id": "TR8",
    "case": "run --trace"
  },
  {
    "id": "TR9",
    "case": "The state at an instant"
  },
  {
    "id": "TR10",
    "case": "An alert's next repeat"
  },
  {
    "id": "TR11",
    "case": "The reports name a kept trace"
  },
  {
    "id": "TR12",
    "case": "repro's trace"
  },
  {
    "id": "TR13",
    "case": "A vitest test's trace"
  },
  {
    "id": "TR14",
    "case": "Snapshots in a trace"
  },
  {
    "id": "TV1",
    "case": "What the page shows"
  },
  {
    "id": "TV2",
    "case": "The cursor"
  },
  {
    "id": "TV3",
    "case": "A failed scenario"
  },
  {
    "id": "TV4",
    "case": "Kinds and fields it does not know"
  },
  {
    "id": "TV5",
    "case": "The command"
  }
];
