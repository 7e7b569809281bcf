package dev.offheap.memory;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static dev.offheap.memory.MappedManagers.mapped;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * A mapped file is created if missing, but not its directories. A path in a directory that does not exist
 * was refused with the system's "NoSuchFileException: /dir/pages.bin": the file it was asked to create, which
 * of course did not exist. The refusal names the directory and what is wrong with it.
 */
class AMappedFileInADirectoryThatIsMissingNamesTheDirectoryTest {
    @TempDir
    Path tempDir;

    @Test
    void aMissingDirectoryIsNamedAsMissing() {
        Path directory = tempDir.resolve("not-made");
        Path file = directory.resolve("pages.bin");

        Throwable refusal = catchThrowable(() -> mapped(file).build().close());

        assertThat(refusal).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(file.toString())
                .hasMessageContaining("directory " + directory + " does not exist");
        assertThat(directory).doesNotExist();
    }

    @Test
    void aDirectoryThatIsAFileIsNamedAsNotADirectory() throws Exception {
        Path notADirectory = Files.write(tempDir.resolve("plain"), new byte[] {1});
        Path file = notADirectory.resolve("pages.bin");

        Throwable refusal = catchThrowable(() -> mapped(file).build().close());

        assertThat(refusal).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(file.toString())
                .hasMessageContaining(notADirectory + " is not a directory");
        assertThat(Files.readAllBytes(notADirectory)).containsExactly(1);
    }
}
