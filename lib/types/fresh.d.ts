// Types for `fresh` (jshttp, the package Express itself evaluates conditional GETs with), which ships none:
// the one function lib/http/conditional-get.ts calls.
declare module 'fresh' {
  /** True when the request's If-None-Match (else If-Modified-Since) matches the response's validators. */
  function fresh(
    requestHeaders: { [name: string]: string | string[] | undefined },
    responseHeaders: { [name: string]: string | number | string[] | undefined },
  ): boolean;
  export = fresh;
}
