// Run under `node --require <services/mcp>/bind-loopback.cjs`: calls `listen` in each of the
// shapes the preload handles, and prints one JSON line per call with the address the server got,
// whether the callback (where one was given) ran, and whether the server was bound as soon as
// `listen` returned. The Rust test checks them.
"use strict";
const net = require("node:net");
const http = require("node:http");
const os = require("node:os");
const path = require("node:path");
const fs = require("node:fs");

const socketPath = path.join(os.tmpdir(), `agboss-bind-loopback-${process.pid}.sock`);
const plain = () => net.createServer();
const cases = [
  ["listen()", (s) => s.listen()],
  ["listen(cb)", (s, cb) => s.listen(cb)],
  ["listen(port)", (s) => s.listen(0)],
  ["listen('port')", (s) => s.listen("0")],
  ["listen(port, cb)", (s, cb) => s.listen(0, cb)],
  ["listen('port', cb)", (s, cb) => s.listen("0", cb)],
  ["listen(port, backlog, cb)", (s, cb) => s.listen(0, 16, cb)],
  ["listen(port, undefined, backlog, cb)", (s, cb) => s.listen(0, undefined, 16, cb)],
  ["listen({port})", (s) => s.listen({ port: 0 })],
  ["listen({port}, cb)", (s, cb) => s.listen({ port: 0 }, cb)],
  ["http listen(port, cb)", (s, cb) => s.listen(0, cb), () => http.createServer()],
  ["listen(port, host)", (s) => s.listen(0, "127.0.0.2")],
  ["listen({port, host})", (s) => s.listen({ port: 0, host: "127.0.0.2" })],
  ["listen(path)", (s) => s.listen(socketPath)],
];

(async () => {
  for (const [name, call, make] of cases) {
    const server = (make || plain)();
    let callback = null;
    let atOnce = null;
    const address = await new Promise((resolve, reject) => {
      server.once("error", reject);
      server.once("listening", () => setImmediate(() => resolve(server.address())));
      call(server, () => {
        callback = true;
      });
      // Whether the server is bound as soon as `listen` returns.
      atOnce = server.address() !== null;
      if (call.length > 1 && callback === null) callback = false;
    });
    await new Promise((resolve) => server.close(resolve));
    const host = typeof address === "string" ? "path" : address.address;
    console.log(JSON.stringify({ case: name, host, callback, atOnce }));
  }
  fs.rmSync(socketPath, { force: true });
})().catch((error) => {
  console.error(error);
  process.exit(1);
});
