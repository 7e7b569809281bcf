package dev.offheap.memory.internal;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** JFR event: a memory manager refused a request for pages or bytes, after asking owners to spill. */
@Name("dev.offheap.PageAllocationFailed")
@Label("Page Allocation Failed")
@Category({"offheap", "Memory Manager"})
@Description("A MemoryManager could not satisfy a request even after spilling")
@StackTrace(true)
public final class PageAllocationFailedEvent extends Event {
    /** The manager's name. */
    @Label("Manager")
    public String manager;

    /** The requesting owner, as text. */
    @Label("Owner")
    public String owner;

    /** Bytes requested. */
    @Label("Requested")
    @DataAmount
    public long requestedBytes;

    /** Bytes in use in the manager when it refused. */
    @Label("Used")
    @DataAmount
    public long usedBytes;

    /** The manager's limit. */
    @Label("Limit")
    @DataAmount
    public long limitBytes;
}
