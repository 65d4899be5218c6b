// The adapter's coded failure: a request handler error carrying a wire error code.

/** A request handler's failure with a wire error code (PROTOCOL.md §6). */
export class AdapterError extends Error {
  constructor(code, message, details) {
    super(message);
    this.code = code;
    this.details = details;
  }
}
