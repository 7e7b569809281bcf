package dev.offheap.memory;

import dev.offheap.memory.internal.FileSpace;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What a mapped build relies on in the descriptor it opens its file with: the lock stays while other
 * descriptors of the file are opened and closed (a POSIX lock would not), and the reservation, like the
 * mapping through {@link FileSpace.Descriptor#path()}, goes to the file that was opened even once another
 * file is renamed over its path (a reservation that opened the path again grew that other file).
 */
class ADescriptorsLockAndReservationStayOnTheFileItOpenedTest {
    @TempDir
    Path tempDir;

    @BeforeEach
    void needsDescriptors() {
        Assumptions.assumeTrue(FileSpace.Descriptor.supported() && FileSpace.supported(), "64-bit Linux only");
    }

    @Test
    void theLockStaysWhenAnotherDescriptorOfTheFileCloses() throws Exception {
        Path file = tempDir.resolve("locked.bin");
        try (FileSpace.Descriptor first = FileSpace.Descriptor.open(file, true)) {
            assertThat(first.tryLock()).isEqualTo(FileSpace.Descriptor.Lock.TAKEN);
            FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE).close();
            try (FileSpace.Descriptor second = FileSpace.Descriptor.open(file, false);
                 FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                assertThat(second.tryLock()).as("another open of the file").isEqualTo(FileSpace.Descriptor.Lock.HELD_ELSEWHERE);
                assertThat(channel.tryLock()).as("a POSIX lock of this process").isNull();
            }
        }
        try (FileSpace.Descriptor after = FileSpace.Descriptor.open(file, false)) {
            assertThat(after.tryLock()).as("once the holder is closed").isEqualTo(FileSpace.Descriptor.Lock.TAKEN);
        }
    }

    @Test
    void theReservationAndThePathGoToTheFileOpenedNotToOneRenamedOverIt() throws Exception {
        Path file = tempDir.resolve("pages.bin");
        Path other = Files.write(tempDir.resolve("other.bin"), new byte[] {1, 2, 3});
        try (FileSpace.Descriptor opened = FileSpace.Descriptor.open(file, true)) {
            Files.move(other, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            opened.reserve(1 << 20);
            assertThat(Files.size(file)).as("the file renamed over the path").isEqualTo(3);
            assertThat(Files.size(opened.path())).as("the file opened").isEqualTo(1 << 20);
        }
    }

    @Test
    void openSaysWhatIsAtThePath() throws Exception {
        Path file = Files.createFile(tempDir.resolve("there.bin"));
        assertThatThrownBy(() -> FileSpace.Descriptor.open(file, true)).isInstanceOf(FileAlreadyExistsException.class)
                .hasMessageContaining(file.toString());
        assertThatThrownBy(() -> FileSpace.Descriptor.open(tempDir.resolve("missing.bin"), false))
                .isInstanceOf(NoSuchFileException.class);
    }
}
