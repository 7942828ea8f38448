// The part of undici the engine uses, bundled as dist/vendor/undici.js (scripts/build.mjs) instead
// of undici's index.js: the dispatchers (Agent, EnvHttpProxyAgent) and `request`. Its index also
// loads fetch, WebSocket, EventSource, cookies (which touches globalThis.Headers and so loads Node's
// own copy of undici), the mock and cache layers: ≈ 30 ms of a CLI process's first request for
// code the engine never calls. The modules below are undici's own, unchanged.
'use strict'
const Dispatcher = require('undici/lib/dispatcher/dispatcher')
const api = require('undici/lib/api')
const util = require('undici/lib/core/util')
const { InvalidArgumentError } = require('undici/lib/core/errors')

Object.assign(Dispatcher.prototype, api) // as undici's index.js does: dispatcher.request() and friends

/**
 * undici's top-level request(url, opts) (index.js makeDispatcher, same URL checks and defaults),
 * except that it never falls back to a process-global dispatcher: the engine's own carries its CA
 * certificates, proxy and timeouts, so a call without one is a bug, not a default.
 */
function request (url, opts) {
  if (!url || (typeof url !== 'string' && typeof url !== 'object' && !(url instanceof URL))) {
    throw new InvalidArgumentError('invalid url')
  }
  if (!opts || typeof opts !== 'object' || !opts.dispatcher) {
    throw new InvalidArgumentError('the engine passes its own dispatcher to every request')
  }
  if (opts.path != null) {
    throw new InvalidArgumentError('the engine passes whole URLs, not opts.path')
  }
  const parsed = util.parseURL(url)
  return opts.dispatcher.request({
    ...opts,
    origin: parsed.origin,
    path: parsed.search ? `${parsed.pathname}${parsed.search}` : parsed.pathname,
    method: opts.method || (opts.body ? 'PUT' : 'GET')
  })
}

module.exports = {
  Dispatcher,
  Agent: require('undici/lib/dispatcher/agent'),
  EnvHttpProxyAgent: require('undici/lib/dispatcher/env-http-proxy-agent'),
  request
}
