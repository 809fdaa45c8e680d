/** A driver or remote broke its contract deterministically: retrying cannot help, the task fails. */
export class DriverProtocolError extends Error {}
