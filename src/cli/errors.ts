/** A mistake the user can fix (bad flag, unreadable input): one line on stderr and exit 2, never a stack trace. */
export class UsageError extends Error {}
