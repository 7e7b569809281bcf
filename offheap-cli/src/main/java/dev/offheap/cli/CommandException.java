package dev.offheap.cli;

/** A command that was understood but failed: reported with its message, exit code 1. */
public final class CommandException extends Exception {
    private static final long serialVersionUID = 1L;

    /** @param message what failed, and what to do about it */
    public CommandException(String message) {
        super(message);
    }

    /**
     * @param message what failed
     * @param cause why
     */
    public CommandException(String message, Throwable cause) {
        super(message, cause);
    }
}
