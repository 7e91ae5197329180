/** The one error type of the state file: the file cannot be used as it is, and the message says why and the fix. */
export class StateFileError extends Error {
  override readonly name = "StateFileError";
}
