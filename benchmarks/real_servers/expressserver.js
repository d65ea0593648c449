// Express's static middleware as a real server for bench_real_servers.py (family ``express``).
//
// A stock Express application with one middleware, ``express.static(root)`` with its
// defaults (serve-static: ``index.html``, ``/d`` -> 301 ``/d/``, dotfiles ignored), on
// 127.0.0.1: what ``app.use(express.static("public"))`` serves. Express is installed by
// setup-node.sh into node/ next to this file. Express takes the path from an
// absolute-form request target (what a proxied crawl sends), so it needs no tunnel.
//
// One addition, which changes no answer: a request log (the request line as received,
// Host, status) appended to --log, as the other families' request logs.
//
//     node expressserver.js --root=DIR --port=PORT --pid-file=FILE --log=FILE
//
// Writes its pid to --pid-file and serves until SIGTERM.
"use strict";

const fs = require("fs");
const path = require("path");
const express = require(path.join(__dirname, "node", "node_modules", "express"));

const options = {};
for (const argument of process.argv.slice(2)) {
  const match = /^--(root|port|pid-file|log)=(.*)$/.exec(argument);
  if (!match) {
    console.error(`expressserver.js: unknown argument ${argument}`);
    process.exit(2);
  }
  options[match[1]] = match[2];
}
const missing = ["root", "port", "pid-file", "log"].filter((name) => !(name in options));
if (missing.length) {
  console.error(`expressserver.js: missing --${missing.join(", --")}`);
  process.exit(2);
}

const log = fs.createWriteStream(options.log, { flags: "a" });
const app = express();
app.use((request, response, next) => {
  response.on("finish", () => {
    const line = `${request.socket.remoteAddress} [${new Date().toISOString()}] "${request.method} ${request.originalUrl} HTTP/${request.httpVersion}" ${response.statusCode} "${request.headers.host || ""}"\n`;
    log.write(line);
  });
  next();
});
app.use(express.static(options.root));

const server = app.listen(Number(options.port), "127.0.0.1", () => {
  fs.writeFileSync(options["pid-file"], `${process.pid}\n`);
});
function stop() {
  server.close();
  server.closeAllConnections();
  fs.rmSync(options["pid-file"], { force: true });
  process.exit(0);
}
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
