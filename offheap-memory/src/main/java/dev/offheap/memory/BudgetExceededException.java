package dev.offheap.memory;

/**
 * Thrown when a request for memory would take a {@link Budget} (or a {@link MemoryManager},
 * which draws from one) past its limit.
 *
 * <p>The message names the budget that refused, the request, the limit, what is used, and the
 * biggest users below it, so that the log line alone says who holds the memory. The same facts
 * are available as accessors for programs that react to the failure.
 *
 * <p>Nothing is reserved when this is thrown: a failed request leaves every budget on the path
 * exactly as it was.
 */
public final class BudgetExceededException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String budgetPath;
    private final long requestedBytes;
    private final long limitBytes;
    private final long usedBytes;

    /**
     * Creates the exception.
     *
     * @param message        the full, human-readable explanation
     * @param budgetPath     the path of the budget that refused, for example {@code process/sorter}
     * @param requestedBytes the size of the refused request, in bytes
     * @param limitBytes     the limit of the refusing budget, in bytes
     * @param usedBytes      the bytes that budget had in use when it refused
     */
    public BudgetExceededException(String message, String budgetPath, long requestedBytes,
                                   long limitBytes, long usedBytes) {
        super(message);
        this.budgetPath = budgetPath;
        this.requestedBytes = requestedBytes;
        this.limitBytes = limitBytes;
        this.usedBytes = usedBytes;
    }

    /** @return the path of the budget that refused the request, root first, separated by {@code /} */
    public String budgetPath() {
        return budgetPath;
    }

    /** @return the size of the refused request, in bytes */
    public long requestedBytes() {
        return requestedBytes;
    }

    /** @return the limit of the refusing budget, in bytes */
    public long limitBytes() {
        return limitBytes;
    }

    /** @return the bytes in use in the refusing budget when it refused */
    public long usedBytes() {
        return usedBytes;
    }
}
