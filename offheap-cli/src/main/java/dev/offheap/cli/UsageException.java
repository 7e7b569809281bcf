package dev.offheap.cli;

/** A command line that cannot be run as given: reported with the usage, exit code 2. */
public final class UsageException extends Exception {
    private static final long serialVersionUID = 1L;

    /** @param message what is wrong with the command line */
    public UsageException(String message) {
        super(message);
    }
}
