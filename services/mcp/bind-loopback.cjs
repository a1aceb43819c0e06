// A Node preload (`node --require ./bind-loopback.cjs <script>`) that keeps a test server on the
// loopback interface: every `net.Server#listen` call (so also http/https servers and express's
// `app.listen`) that gives a port, or nothing, but no host binds to 127.0.0.1 instead of every
// interface. Calls that name a host, a unix socket path, a handle or a file descriptor are left as
// they are. A listener given no host binds at once in Node (`server.address()` answers right
// after `listen`, which the conformance suite's servers rely on), while one given a host waits
// for a DNS lookup; so while the preload's own listen call runs, the lookup of 127.0.0.1 answers
// at once. See docs/mcp-servers.md.
"use strict";

const dns = require("node:dns");
const net = require("node:net");

const LOOPBACK = "127.0.0.1";
const originalListen = net.Server.prototype.listen;

// What Node takes for a port: a number, or a string that reads as a non-negative number
// (`PORT` from the environment is a string); `undefined`/`null` mean "any free port". Any other
// string is a pipe or unix socket path.
function isPort(value) {
  if (value === undefined || value === null) return true;
  if (typeof value === "number") return true;
  return typeof value === "string" && Number(value) >= 0;
}

function isHandle(options) {
  return (
    typeof options.fd === "number" ||
    options._handle !== undefined ||
    (options.handle !== undefined && options.handle !== null)
  );
}

function withLoopback(args) {
  const first = args[0];

  // listen() and listen(callback): any free port.
  if (args.length === 0 || typeof first === "function") {
    return [0, LOOPBACK, ...args];
  }

  // listen({ port, ... }[, callback])
  if (typeof first === "object" && first !== null) {
    if (isHandle(first) || first.path != null || first.host != null) return args;
    return [{ ...first, host: LOOPBACK }, ...args.slice(1)];
  }

  // listen(port[, host][, backlog][, callback])
  if (isPort(first)) {
    const second = args[1];
    if (typeof second === "string") return args; // an explicit host
    if (args.length > 1 && (second === undefined || second === null)) {
      // listen(port, undefined, backlog, cb): the host slot is there but empty; fill it.
      return [first, LOOPBACK, ...args.slice(2)];
    }
    // listen(port), listen(port, cb), listen(port, backlog[, cb])
    return [first, LOOPBACK, ...args.slice(1)];
  }

  // listen(path[, backlog][, callback]): a unix socket or pipe.
  return args;
}

// Calls `listen` with `args`, 127.0.0.1 looked up at once rather than on the next tick.
function listenNow(server, args) {
  const lookup = dns.lookup;
  dns.lookup = function loopbackAtOnce(hostname, options, callback) {
    const done = typeof options === "function" ? options : callback;
    if (hostname !== LOOPBACK || typeof done !== "function") {
      return lookup.apply(this, arguments);
    }
    if (options && typeof options === "object" && options.all) {
      done(null, [{ address: LOOPBACK, family: 4 }]);
    } else {
      done(null, LOOPBACK, 4);
    }
    return {};
  };
  try {
    return originalListen.apply(server, args);
  } finally {
    dns.lookup = lookup;
  }
}

net.Server.prototype.listen = function listen(...args) {
  const changed = withLoopback(args);
  if (changed === args) return originalListen.apply(this, args);
  return listenNow(this, changed);
};
