package dev.offheap.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/find-jdk.sh} asks each candidate JDK's {@code java} for its version through a pipeline, and
 * {@code bin/offheap} and {@code .ci/run} source it under {@code set -euo pipefail}: a JAVA_HOME whose
 * {@code java} exists but fails (a damaged install, one for another CPU) failed the pipeline, and the
 * launcher ended there with that java's exit code and no word of why, never looking under /usr/lib/jvm. Such
 * a JDK is passed over as one that is not a JDK 25: another is used, or the script says what to install.
 */
@EnabledOnOs(OS.LINUX)
class AJavaHomeWhoseJavaCannotRunIsPassedOverTest {
    @TempDir
    Path tmp;

    @Test
    void findJdkUsesAnotherJdkOrSaysWhatToInstall() throws Exception {
        Path broken = tmp.resolve("broken-jdk");
        executable(broken.resolve("bin/java"), "#!/bin/sh\necho 'Error: could not open lib/jvm.cfg' >&2\nexit 3\n");
        executable(broken.resolve("bin/javac"), "#!/bin/sh\nexit 3\n");
        Path findJdk = Path.of("").toAbsolutePath().getParent().resolve("bin/find-jdk.sh");
        assertThat(findJdk).exists();

        // as bin/offheap sources it
        ProcessBuilder builder = new ProcessBuilder("bash", "-c",
                "set -euo pipefail; . \"$1\"; echo \"found: $JAVA_HOME\"", "bash", findJdk.toString())
                .directory(tmp.toFile());
        builder.environment().put("JAVA_HOME", broken.toString());
        Process process = builder.start();
        process.getOutputStream().close();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        int code = process.exitValue();

        assertThat(code).as("exit code; out: %s, err: %s", out, err).isIn(0, 1);
        if (code == 0) {
            // this machine has a JDK 25 under /usr/lib/jvm
            assertThat(out).startsWith("found: /usr/lib/jvm/").doesNotContain(broken.toString());
        } else {
            assertThat(err).contains("offheap: needs a JDK 25 or newer (with javac)",
                    "JAVA_HOME=" + broken + " is not one", "Install one");
        }
    }

    private static void executable(Path file, String text) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, text);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
}
