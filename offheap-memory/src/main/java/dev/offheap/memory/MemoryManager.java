package dev.offheap.memory;

import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * API skeleton: the implementation lands in the next commit.
 */
public final class MemoryManager implements AutoCloseable {
    private MemoryManager() {
    }

    public static Builder builder() {
        return new Builder();
    }

    public List<MemorySegment> allocatePages(Object owner, int count) {
        throw new UnsupportedOperationException("not yet implemented");
    }

    public MemorySegment allocatePage(Object owner) {
        throw new UnsupportedOperationException("not yet implemented");
    }

    public void release(MemorySegment page) {
        throw new UnsupportedOperationException("not yet implemented");
    }

    public void release(Collection<MemorySegment> pages) {
        throw new UnsupportedOperationException("not yet implemented");
    }

    public void releaseAll(Object owner) {
        throw new UnsupportedOperationException("not yet implemented");
    }

    public void reserve(Object owner, long bytes) {
        throw new UnsupportedOperationException("not yet implemented");
    }

    public void releaseReservation(Object owner, long bytes) {
        throw new UnsupportedOperationException("not yet implemented");
    }

    public void registerSpillCallback(Object owner, SpillCallback callback) {
        throw new UnsupportedOperationException("not yet implemented");
    }

    public int pageSize() {
        throw new UnsupportedOperationException("not yet implemented");
    }

    public long totalBytes() {
        throw new UnsupportedOperationException("not yet implemented");
    }

    public int totalPages() {
        throw new UnsupportedOperationException("not yet implemented");
    }

    public int usedPages() {
        throw new UnsupportedOperationException("not yet implemented");
    }

    public int freePages() {
        throw new UnsupportedOperationException("not yet implemented");
    }

    public long usedBytes() {
        throw new UnsupportedOperationException("not yet implemented");
    }

    public MemoryType type() {
        throw new UnsupportedOperationException("not yet implemented");
    }

    public Budget budget() {
        throw new UnsupportedOperationException("not yet implemented");
    }

    public Map<String, Long> usageByOwner() {
        throw new UnsupportedOperationException("not yet implemented");
    }

    @Override
    public void close() {
        throw new UnsupportedOperationException("not yet implemented");
    }

    /** Builder skeleton. */
    public static final class Builder {
        private Builder() {
        }

        public Builder totalSize(long bytes) { return this; }
        public Builder totalSizeFractionOfHeap(double fraction) { return this; }
        public Builder totalSizeFractionOfPhysicalMemory(double fraction) { return this; }
        public Builder pageSize(int bytes) { return this; }
        public Builder type(MemoryType type) { return this; }
        public Builder mappedFile(Path file) { return this; }
        public Builder pageAccess(PageAccess access) { return this; }
        public Builder preallocate(boolean preallocate) { return this; }
        public Builder parentBudget(Budget parent) { return this; }
        public Builder name(String name) { return this; }
        public Builder registerMBean(boolean register) { return this; }
        public Builder properties(Properties properties) { return this; }
        public MemoryManager build() { throw new UnsupportedOperationException("not yet implemented"); }
    }
}
