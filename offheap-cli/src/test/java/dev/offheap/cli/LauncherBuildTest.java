package dev.offheap.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launcher {@code bin/offheap}'s build-on-first-use logic, run as a process on a scratch checkout
 * that holds the real {@code bin/offheap} and {@code bin/find-jdk.sh} beside a fake {@code mvnw} (it
 * writes the CLI jar and counts its runs) and a fake JDK (its {@code java} prints the arguments it
 * got): seconds, not a real Maven build.
 */
@EnabledOnOs(OS.LINUX)
class LauncherBuildTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(50);

    /**
     * Counts its runs in builds.log; fails when another build is running; files in the root steer it. The
     * jar and its one library say which build wrote them; the jar then lists the files of the CLI's
     * target/classes, where each build copies the resources of every module, as Maven does.
     */
    private static final String FAKE_MVNW = """
            #!/usr/bin/env bash
            set -eu
            cd "$(dirname "$0")"
            echo build >> builds.log
            echo "${JAVA_HOME:-}" > java-home.used
            if ! mkdir building.marker 2>/dev/null; then echo "fake mvnw: two builds at once" >&2; exit 3; fi
            sleep "${FAKE_BUILD_SECONDS:-0}"
            mkdir -p offheap-cli/target/lib
            build="build $(wc -l < builds.log)"
            # as Maven does: resources copied to target/classes over what an earlier build left there
            for m in */; do
              if [ -d "$m/src/main/resources" ]; then
                mkdir -p "$m/target/classes" && cp -R "$m/src/main/resources/." "$m/target/classes/"
              fi
            done
            echo "$build" > offheap-cli/target/lib/dep.jar
            echo "jar of $build" > offheap-cli/target/offheap-cli.jar
            if [ -d offheap-cli/target/classes ]; then
              (cd offheap-cli/target/classes && find . -type f | LC_ALL=C sort) >> offheap-cli/target/offheap-cli.jar
            fi
            if [ -f edit-during-build ]; then rm edit-during-build; echo '// edited' >> offheap-cli/src/main/java/Main.java; fi
            rmdir building.marker
            if [ -f hang-after-jar ]; then rm hang-after-jar; echo $$ > mvnw.pid; touch jar-written; exec sleep 60; fi
            if [ -f fail-after-jar ]; then rm fail-after-jar; echo "fake mvnw: a later module failed" >&2; exit 1; fi
            """;

    private static final String FAKE_JAVA = """
            #!/usr/bin/env bash
            for a in "$@"; do
              if [ "$a" = -XshowSettings:properties ]; then echo "    java.specification.version = 25" >&2; exit 0; fi
            done
            for a in "$@"; do printf 'arg:%s\\n' "$a"; done
            # FAKE_JAVA_HOLD=F: a command that goes on running (serve, compare) until the file F appears; it
            # writes the jar it was given to F.jar once started
            if [ -n "${FAKE_JAVA_HOLD:-}" ]; then
              jar=; prev=
              for a in "$@"; do if [ "$prev" = -jar ]; then jar=$a; fi; prev=$a; done
              printf '%s\\n' "$jar" > "$FAKE_JAVA_HOLD.tmp" && mv "$FAKE_JAVA_HOLD.tmp" "$FAKE_JAVA_HOLD.jar"
              while [ ! -e "$FAKE_JAVA_HOLD" ]; do sleep 0.02; done
            fi
            exit "${FAKE_JAVA_EXIT:-0}"
            """;

    @TempDir
    Path tmp;

    Path checkout;
    Path jdk;

    @BeforeEach
    void scratchCheckout() throws IOException {
        Path repo = Path.of("").toAbsolutePath().getParent();
        assertThat(repo.resolve("bin/offheap")).as("the repository root from %s", Path.of("").toAbsolutePath()).exists();
        checkout = tmp.resolve("check out [1] $x");
        Files.createDirectories(checkout.resolve("bin"));
        for (String script : List.of("bin/offheap", "bin/find-jdk.sh")) {
            Files.copy(repo.resolve(script), checkout.resolve(script), StandardCopyOption.COPY_ATTRIBUTES);
        }
        executable(checkout.resolve("mvnw"), FAKE_MVNW);
        Files.writeString(checkout.resolve("pom.xml"), "<project/>\n");
        for (String module : List.of("offheap-memory", "offheap-cli")) {
            Files.createDirectories(checkout.resolve(module));
            Files.writeString(checkout.resolve(module).resolve("pom.xml"), "<project/>\n");
        }
        Path source = checkout.resolve("offheap-cli/src/main/java/Main.java");
        Files.createDirectories(source.getParent());
        Files.writeString(source, "class Main {}\n");
        jdk = tmp.resolve("jdk");
        executable(jdk.resolve("bin/java"), FAKE_JAVA);
        executable(jdk.resolve("bin/javac"), "#!/bin/sh\n");
    }

    @Test
    void twoFirstRunsAtOnceBuildOnceAndBothRunTheCli() {
        assertTimeoutPreemptively(TIMEOUT, () -> {
            Process first = start(Map.of("FAKE_BUILD_SECONDS", "2"), "compare");
            Process second = start(Map.of("FAKE_BUILD_SECONDS", "2"), "serve");
            Result a = finish(first);
            Result b = finish(second);
            assertThat(a.code()).as("first run: %s", a).isZero();
            assertThat(b.code()).as("second run: %s", b).isZero();
            assertThat(a.out()).contains("arg:compare");
            assertThat(b.out()).contains("arg:serve");
            assertThat(builds()).as("the second run waits for the first's build and uses it").isEqualTo(1);
        });
    }

    @Test
    void aSourceEditedWhileTheBuildRunsIsBuiltOnTheNextRun() {
        assertTimeoutPreemptively(TIMEOUT, () -> {
            Files.writeString(checkout.resolve("edit-during-build"), "");
            Result first = finish(start(Map.of(), "--help"));
            assertThat(first.code()).as("%s", first).isZero();
            assertThat(builds()).isEqualTo(1);

            Result second = finish(start(Map.of(), "--help"));
            assertThat(second.code()).as("%s", second).isZero();
            assertThat(builds()).as("the edit came after the build had started: the jar may not hold it").isEqualTo(2);

            finish(start(Map.of(), "--help"));
            assertThat(builds()).as("nothing changed since the second build").isEqualTo(2);
        });
    }

    @Test
    void aBuildThatFailedAfterWritingTheJarIsNotTakenAsBuilt() {
        assertTimeoutPreemptively(TIMEOUT, () -> {
            Files.writeString(checkout.resolve("fail-after-jar"), "");
            Result failed = finish(start(Map.of(), "--help"));
            assertThat(failed.code()).as("%s", failed).isEqualTo(1);
            assertThat(failed.err()).contains("a later module failed").contains("offheap: the build failed");

            Result next = finish(start(Map.of("FAKE_JAVA_EXIT", "2"), "a b", "*"));
            assertThat(builds()).as("the failed build's jar must not count as built; %s", next).isEqualTo(2);
            assertThat(next.code()).as("the CLI's exit code, passed through: %s", next).isEqualTo(2);
            assertThat(next.out()).contains("arg:--enable-native-access=ALL-UNNAMED", "arg:a b\narg:*\n");
        });
    }

    @Test
    void aBuildKilledAfterWritingTheJarIsNotTakenAsBuilt() {
        assertTimeoutPreemptively(TIMEOUT, () -> {
            Files.writeString(checkout.resolve("hang-after-jar"), "");
            Process launcher = start(Map.of(), "--help");
            Path jarWritten = checkout.resolve("jar-written");
            while (!Files.exists(jarWritten)) {
                Thread.sleep(10);
            }
            ProcessHandle mvnw = ProcessHandle.of(Long.parseLong(Files.readString(checkout.resolve("mvnw.pid")).strip()))
                    .orElseThrow();
            // both killed at once (SIGKILL: the OOM killer, a machine's shutdown): no trap of the launcher runs
            launcher.destroyForcibly();
            mvnw.destroyForcibly();
            launcher.waitFor();
            mvnw.onExit().join();
            assertThat(checkout.resolve("offheap-cli/target/offheap-cli.jar")).exists();

            Result next = finish(start(Map.of(), "--help"));
            assertThat(next.code()).as("%s", next).isZero();
            assertThat(builds()).as("the killed build's jar must not count as built; %s", next).isEqualTo(2);
            assertThat(next.out()).contains("arg:--help");

            finish(start(Map.of(), "--help"));
            assertThat(builds()).as("the second build finished").isEqualTo(2);
        });
    }

    @Test
    void aRebuildLeavesTheJarsOfARunningCommandAsTheyWere() {
        assertTimeoutPreemptively(TIMEOUT, () -> {
            Path hold = tmp.resolve("serve-may-end");
            Process serve = start(Map.of("FAKE_JAVA_HOLD", hold.toString()), "serve");
            try {
                Path servesJarFile = tmp.resolve("serve-may-end.jar");
                while (!Files.exists(servesJarFile)) {
                    Thread.sleep(10);
                }
                Path servesJar = Path.of(Files.readString(servesJarFile).strip());
                assertThat(Files.readString(servesJar)).isEqualTo("jar of build 1\n");

                // a source edited while serve runs: the next command rebuilds, serve's jars stay as they were
                Files.writeString(checkout.resolve("offheap-cli/src/main/java/Main.java"), "class Main { int edited; }\n");
                Result compare = finish(start(Map.of(), "compare"));
                assertThat(compare.code()).as("%s", compare).isZero();
                assertThat(builds()).isEqualTo(2);
                Path comparesJar = jarOf(compare);
                assertThat(Files.readString(comparesJar)).isEqualTo("jar of build 2\n");
                assertThat(comparesJar.resolveSibling("lib/dep.jar")).hasContent("build 2");
                assertThat(servesJar).as("the running serve's jar").hasContent("jar of build 1");
                assertThat(servesJar.resolveSibling("lib/dep.jar")).as("its library").hasContent("build 1");

                Files.writeString(hold, "");
                Result served = finish(serve);
                assertThat(served.code()).as("%s", served).isZero();
                Result again = finish(start(Map.of(), "compare"));
                assertThat(jarOf(again)).as("nothing changed: the same build").isEqualTo(comparesJar);
                assertThat(builds()).isEqualTo(2);

                // the next build removes the copy that nothing runs from any more, and keeps its own
                Files.writeString(checkout.resolve("offheap-cli/src/main/java/Main.java"), "class Main { int edited, again; }\n");
                Result third = finish(start(Map.of(), "--help"));
                assertThat(third.code()).as("%s", third).isZero();
                assertThat(builds()).isEqualTo(3);
                assertThat(servesJar.getParent()).as("serve's copy, unused since serve ended").doesNotExist();
                assertThat(jarOf(third)).hasContent("jar of build 3");
            } finally {
                serve.destroyForcibly();
            }
        });
    }

    @Test
    void aResourceDeletedFromTheSourcesIsNotInTheNextBuild() {
        assertTimeoutPreemptively(TIMEOUT, () -> {
            Path resources = checkout.resolve("offheap-cli/src/main/resources");
            Files.createDirectories(resources);
            Files.writeString(resources.resolve("kept.txt"), "kept\n");
            Files.writeString(resources.resolve("gone file.txt"), "gone\n");
            Path otherModule = checkout.resolve("offheap-memory/src/main/resources/memory.txt");
            Files.createDirectories(otherModule.getParent());
            Files.writeString(otherModule, "memory\n");
            Result first = finish(start(Map.of(), "--help"));
            assertThat(first.code()).as("%s", first).isZero();
            assertThat(jarOf(first)).hasContent("jar of build 1\n./gone file.txt\n./kept.txt");

            // what the other module built before must stay: only a module that lost a file is built afresh
            Path otherBuilt = Files.writeString(checkout.resolve("offheap-memory/target/compiled-before"), "");
            Files.delete(resources.resolve("gone file.txt"));
            Result second = finish(start(Map.of(), "--help"));
            assertThat(second.code()).as("%s", second).isZero();
            assertThat(builds()).isEqualTo(2);
            assertThat(jarOf(second)).hasContent("jar of build 2\n./kept.txt");
            assertThat(otherBuilt).as("the other module's build, kept").exists();

            // an edit deletes nothing: the module's earlier output stays for Maven to bring up to date
            Path cliBuilt = Files.writeString(checkout.resolve("offheap-cli/target/compiled-before"), "");
            Files.writeString(resources.resolve("kept.txt"), "kept, edited\n");
            Result third = finish(start(Map.of(), "--help"));
            assertThat(third.code()).as("%s", third).isZero();
            assertThat(builds()).isEqualTo(3);
            assertThat(cliBuilt).as("the edited module's earlier build, kept").exists();
        });
    }

    @Test
    void theMavenWrapperAndItsSettingsCountAsSources() {
        assertTimeoutPreemptively(TIMEOUT, () -> {
            Path wrapper = checkout.resolve(".mvn/wrapper/maven-wrapper.properties");
            Files.createDirectories(wrapper.getParent());
            Files.writeString(wrapper, "distributionUrl=https://example.org/apache-maven-3.9.11-bin.zip\n");
            finish(start(Map.of(), "--help"));
            assertThat(builds()).isEqualTo(1);

            Files.writeString(wrapper, "distributionUrl=https://example.org/apache-maven-3.9.12-bin.zip\n");
            finish(start(Map.of(), "--help"));
            assertThat(builds()).as("another Maven version").isEqualTo(2);

            Files.writeString(checkout.resolve(".mvn/maven.config"), "-Dmaven.compiler.release=25\n");
            finish(start(Map.of(), "--help"));
            assertThat(builds()).as("Maven's options").isEqualTo(3);

            Files.writeString(checkout.resolve("mvnw"), Files.readString(checkout.resolve("mvnw")) + "# edited\n");
            finish(start(Map.of(), "--help"));
            assertThat(builds()).as("the wrapper script").isEqualTo(4);

            Result unchanged = finish(start(Map.of(), "--help"));
            assertThat(unchanged.code()).as("%s", unchanged).isZero();
            assertThat(builds()).as("nothing changed").isEqualTo(4);
        });
    }

    @Test
    void aSourceInAFolderNamedTargetIsASource() {
        assertTimeoutPreemptively(TIMEOUT, () -> {
            // a package named target: only a module's own target/ is Maven's output
            Path source = checkout.resolve("offheap-cli/src/main/java/dev/target/Target.java");
            Files.createDirectories(source.getParent());
            Files.writeString(source, "package dev.target; class Target {}\n");
            finish(start(Map.of(), "--help"));
            assertThat(builds()).isEqualTo(1);

            Files.writeString(source, "package dev.target; class Target { int edited; }\n");
            Result r = finish(start(Map.of(), "--help"));
            assertThat(r.code()).as("%s", r).isZero();
            assertThat(builds()).as("the edit is built").isEqualTo(2);
        });
    }

    @Test
    void aChangeThatLeavesNothingNewerThanTheBuildIsBuilt() {
        assertTimeoutPreemptively(TIMEOUT, () -> {
            Path memory = checkout.resolve("offheap-memory/src/main/java/Memory.java");
            Files.createDirectories(memory.getParent());
            Files.writeString(memory, "class Memory {}\n");
            finish(start(Map.of(), "--help"));
            assertThat(builds()).isEqualTo(1);

            // a source put back from a backup or an archive (cp -p, rsync -a, tar x) keeps its older date
            Path main = checkout.resolve("offheap-cli/src/main/java/Main.java");
            Files.writeString(main, "class Main { int fromBackup; }\n");
            Files.setLastModifiedTime(main, FileTime.from(Instant.parse("2020-01-01T00:00:00Z")));
            finish(start(Map.of(), "--help"));
            assertThat(builds()).as("a source older than the build").isEqualTo(2);

            // a module's src/main deleted whole: only src/ has a new date
            try (Stream<Path> files = Files.walk(checkout.resolve("offheap-memory/src/main"))) {
                for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
            finish(start(Map.of(), "--help"));
            assertThat(builds()).as("the deleted folder").isEqualTo(3);

            Result unchanged = finish(start(Map.of(), "--help"));
            assertThat(unchanged.code()).as("%s", unchanged).isZero();
            assertThat(builds()).as("nothing changed").isEqualTo(3);
        });
    }

    @Test
    void aFolderTheUserCannotReadDoesNotStopTheLauncher() {
        assertTimeoutPreemptively(TIMEOUT, () -> {
            // a folder of the checkout the user may not read (made by a container as root, say): find reports it
            // and fails, and the list of sources, which the launcher reads under set -e, ended the launcher there
            Path unreadable = checkout.resolve("offheap-results/made-by-root");
            Files.createDirectories(unreadable);
            Files.setPosixFilePermissions(unreadable, PosixFilePermissions.fromString("---------"));
            try {
                List<String> asUser = new ArrayList<>();
                if (Files.isReadable(unreadable)) {
                    // root reads every folder: without the capabilities that let it, it reads as a user does
                    Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/setpriv")), "setpriv, to run as root does not");
                    asUser.addAll(List.of("/usr/bin/setpriv", "--inh-caps=-dac_override,-dac_read_search",
                            "--bounding-set=-dac_override,-dac_read_search", "--"));
                }
                Result first = finish(start(asUser, Map.of(), "--help"));
                assertThat(first.code()).as("%s", first).isZero();
                assertThat(first.out()).contains("arg:--help");
                assertThat(builds()).isEqualTo(1);

                Result second = finish(start(asUser, Map.of(), "--help"));
                assertThat(second.code()).as("%s", second).isZero();
                assertThat(builds()).as("nothing changed").isEqualTo(1);
            } finally {
                Files.setPosixFilePermissions(unreadable, PosixFilePermissions.fromString("rwx------"));
            }
        });
    }

    @Test
    void anExportedCdpathDoesNotMoveTheRepositoryRoot() {
        assertTimeoutPreemptively(TIMEOUT, () -> {
            // run as bin/offheap from the checkout, as the README says; with CDPATH naming a folder that has
            // a bin/ too, `cd bin/..` went there and printed it, and that became the repository root
            ProcessBuilder builder = new ProcessBuilder("bash", "-c", "bin/offheap \"$@\"", "bash", "--help")
                    .directory(checkout.toFile());
            builder.environment().put("JAVA_HOME", jdk.toString());
            builder.environment().put("PATH", "/usr/bin:/bin");
            builder.environment().put("TMPDIR", tmp.toString());
            builder.environment().put("CDPATH", jdk.toString());
            Result r = finish(builder.start());
            assertThat(r.code()).as("%s", r).isZero();
            assertThat(r.out()).contains("arg:-Doffheap.home=" + checkout.toRealPath() + "\n", "arg:--help");
            assertThat(builds()).isEqualTo(1);
        });
    }

    @Test
    void aRelativeJavaHomeIsTheJdkThatBuildsAndRuns() {
        assertTimeoutPreemptively(TIMEOUT, () -> {
            // relative to the directory bin/offheap runs in (tmp), not to the checkout the build runs in
            Result r = finish(start(Map.of("JAVA_HOME", tmp.relativize(jdk).toString()), "--help"));
            assertThat(r.code()).as("%s", r).isZero();
            assertThat(r.out()).contains("arg:--help");
            assertThat(builds()).isEqualTo(1);
            assertThat(Path.of(Files.readString(checkout.resolve("java-home.used")).strip()))
                    .as("the JAVA_HOME the build got (./mvnw finds its JDK again, from the checkout)")
                    .isAbsolute().isEqualTo(jdk.toRealPath());
        });
    }

    private Process start(Map<String, String> env, String... args) throws IOException {
        return start(List.of(), env, args);
    }

    /** @param prefix the command that runs bin/offheap (setpriv, say), empty to run it as it is */
    private Process start(List<String> prefix, Map<String, String> env, String... args) throws IOException {
        List<String> command = new ArrayList<>(prefix);
        command.add(checkout.resolve("bin/offheap").toString());
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).directory(tmp.toFile());
        builder.environment().put("JAVA_HOME", jdk.toString());
        builder.environment().put("PATH", "/usr/bin:/bin");
        builder.environment().put("TMPDIR", tmp.toString());
        builder.environment().remove("OFFHEAP_JAVA_OPTS");
        builder.environment().putAll(env);
        return builder.start();
    }

    private static Result finish(Process process) throws Exception {
        process.getOutputStream().close();
        // a script this small writes little: reading stdout to the end before stderr cannot block it
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        return new Result(process.exitValue(), out, err);
    }

    /** @return the jar the launcher ran java with */
    private static Path jarOf(Result r) {
        List<String> args = r.out().lines().filter(l -> l.startsWith("arg:")).map(l -> l.substring(4)).toList();
        int jar = args.indexOf("-jar");
        assertThat(jar).as("-jar in %s", r).isNotNegative();
        return Path.of(args.get(jar + 1));
    }

    private int builds() throws IOException {
        Path log = checkout.resolve("builds.log");
        return Files.exists(log) ? Files.readAllLines(log).size() : 0;
    }

    private static void executable(Path file, String text) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, text);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    private record Result(int code, String out, String err) {}
}
