package dev.offheap.memory.alloc;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.foreign.MemorySegment;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A frame is an {@link java.lang.foreign.Arena}, whose close promises {@code scope().isAlive() == false}
 * once it completes normally, in every debug mode: also where the frame's segments keep the stack's
 * scope (OFF and SAMPLED), and for a frame popped by the close of a frame outside it.
 */
class AClosedFramesScopeIsNotAliveTest {

    @ParameterizedTest
    @EnumSource(DebugMode.class)
    void closeEndsTheFramesScope(DebugMode mode) {
        try (StackAllocator stack = StackAllocator.builder().registerMBean(false).debug(mode).build()) {
            StackAllocator.Frame frame = stack.pushFrame();
            MemorySegment segment = frame.allocate(16);
            assertThat(frame.scope().isAlive()).isTrue();
            assertThat(segment.scope()).isEqualTo(frame.scope());
            frame.close();
            assertThat(frame.scope().isAlive()).as("scope of a closed frame").isFalse();
            frame.close(); // a second close still does nothing
            assertThat(frame.scope().isAlive()).isFalse();
            try (StackAllocator.Frame next = stack.pushFrame()) {
                assertThat(next.scope().isAlive()).as("the next frame's scope").isTrue();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(DebugMode.class)
    void aFramePoppedByItsOuterFramesCloseHasAClosedScope(DebugMode mode) {
        try (StackAllocator stack = StackAllocator.builder().registerMBean(false).debug(mode).build()) {
            StackAllocator.Frame outer = stack.pushFrame();
            StackAllocator.Frame inner = stack.pushFrame();
            try {
                outer.close();
            } catch (IllegalStateException expected) {
                // the inner frame was open: closed with the outer one, then refused
            }
            assertThat(inner.scope().isAlive()).as("scope of the popped inner frame").isFalse();
            assertThat(outer.scope().isAlive()).as("scope of the outer frame").isFalse();
        }
    }
}
