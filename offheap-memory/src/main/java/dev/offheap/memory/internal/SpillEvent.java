package dev.offheap.memory.internal;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;

/** JFR event: a memory manager asked an owner to give memory back; the event's duration is the callback's. */
@Name("dev.offheap.Spill")
@Label("Spill")
@Category({"offheap", "Memory Manager"})
@Description("A MemoryManager asked an owner to release memory for another owner's request")
public final class SpillEvent extends Event {
    /** The manager's name. */
    @Label("Manager")
    public String manager;

    /** The owner whose request needed memory. */
    @Label("Requester")
    public String requester;

    /** The owner asked to spill. */
    @Label("Spilling Owner")
    public String spillingOwner;

    /** Bytes the request still needed. */
    @Label("Wanted")
    @DataAmount
    public long wantedBytes;

    /** Bytes the spilling owner actually gave back. */
    @Label("Freed")
    @DataAmount
    public long freedBytes;
}
