package dev.offheap.cli.inspect;

import static dev.offheap.cli.OptionValues.count;
import static dev.offheap.cli.OptionValues.duration;
import static dev.offheap.cli.OptionValues.nextNonEmpty;
import static dev.offheap.cli.OptionValues.nonEmpty;
import static dev.offheap.cli.OptionValues.once;

import com.sun.tools.attach.AttachNotSupportedException;
import com.sun.tools.attach.VirtualMachine;
import com.sun.tools.attach.VirtualMachineDescriptor;
import dev.offheap.cli.Command;
import dev.offheap.cli.CommandException;
import dev.offheap.cli.OptionValues;
import dev.offheap.cli.UsageException;
import dev.offheap.cli.compare.Durations;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import javax.management.JMException;
import javax.management.MBeanServerConnection;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/**
 * {@code offheap inspect}: what a running JVM keeps outside its heap. Lists the local JVMs, or attaches to
 * one (the JDK's attach mechanism, then its local JMX agent) and shows its heap, the JDK's direct and
 * mapped buffers, native memory tracking where it is on, the process's resident set, and every offheap
 * memory manager, allocator and cache with their use: the off-heap memory that heap tools do not show.
 */
public final class InspectCommand implements Command {

    /**
     * The parsed command line.
     *
     * @param pid      the JVM to inspect, or -1 to list the JVMs
     * @param json     whether to print JSON instead of tables
     * @param interval time between snapshots, or null for one
     * @param count    snapshots to take; 0 for no limit (until the JVM ends or the command is stopped)
     * @param reports  whether to show each allocator's report (live allocations by site in a debug mode)
     */
    public record Args(long pid, boolean json, Duration interval, long count, boolean reports) {
    }

    private static final Set<String> VALUE_OPTIONS = Set.of("--watch", "--count");
    /** The options that take no value. */
    private static final Set<String> FLAGS = Set.of("--json", "--reports");
    /** Time between snapshots when --count asks for several and --watch gives none. */
    static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(1);
    /**
     * How long the JVM has to answer the attach (with its JMX agent's start) and each snapshot. A JVM that
     * does not answer (stopped by SIGSTOP or a debugger, or hung) was waited for without end: its attach
     * listener and JMX agent, once started, accept the connection, and neither the attach protocol nor RMI
     * times out a read.
     */
    static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(30);
    /** How long closing waits for the JVM to take note: one that does not answer is left to the call's thread. */
    private static final long CLOSE_MILLIS = 2000;

    private final Duration answerTimeout;

    /** The command as {@code bin/offheap} runs it. */
    public InspectCommand() {
        this(ANSWER_TIMEOUT);
    }

    /**
     * @param answerTimeout how long the JVM has to answer the attach and each snapshot (tests shorten it)
     */
    public InspectCommand(Duration answerTimeout) {
        this.answerTimeout = answerTimeout;
    }

    @Override
    public String name() {
        return "inspect";
    }

    @Override
    public String summary() {
        return "show what a running JVM keeps off the heap: its memory managers, allocators, caches, direct and mapped buffers";
    }

    @Override
    public String usage() {
        return """
                Usage: offheap inspect                      list the JVMs that can be inspected
                       offheap inspect <pid> [--json] [--reports] [--watch D] [--count N]
                """;
    }

    @Override
    public String help() {
        return usage() + """

                Attaches to a running JVM of the same user on this machine (the JDK's attach mechanism, then
                its local JMX agent, which the attach starts if it is not running) and shows:
                  process    resident set and its peak (Linux /proc)
                  heap       used, committed and max
                  buffers    the JDK's direct and mapped ByteBuffers (count and bytes)
                  NMT        native memory tracking's totals, where the JVM runs with
                             -XX:NativeMemoryTracking=summary (FFM and Unsafe memory is its "Other")
                  managers   every offheap MemoryManager (dev.offheap:type=MemoryManager): total, used,
                             free and peak, reservations, refusals, spills, the largest owners,
                             and the child budgets of its budget (used, limit, what each holds)
                  allocators every offheap allocator with an MBean (dev.offheap:type=Allocator; pooled
                             and stack allocators by default, native ones when built so): bytes and
                             allocations live, footprint, threads, budget, double frees and other
                             misuse seen in a debug mode
                  caches     every offheap cache, JCache ones included (dev.offheap:type=Cache):
                             capacity, bytes used, entries, hit ratio, loads, evictions, expirations

                Options:
                  --json       one JSON object per snapshot, sizes in bytes, absent numbers null
                  --reports    each allocator's report too: in the SAMPLED and FULL debug modes its
                               live allocations grouped by allocation site and thread (the leaks), and
                               the problems it recorded; in FULL mode this walks every live allocation
                  --watch D    take a snapshot every D (e.g. 2s, 500ms) until the JVM ends or Ctrl-C
                  --count N    stop after N snapshots (with --watch, or every second without it)
                  -h, --help   this help

                The JVM must allow attaching (the default; -XX:+DisableAttachMechanism forbids it) and run as
                the same user, and answer the attach and each snapshot within 30 s (a JVM stopped by a
                debugger or SIGSTOP does not). Exit codes: 0 success, 1 the JVM could not be inspected, 2 a
                bad command line.
                """;
    }

    /**
     * @param argv the arguments after "inspect"
     * @return the parsed arguments
     * @throws UsageException if an option is unknown, a value makes no sense, or the pid is not a process id
     */
    public static Args parse(List<String> argv) throws UsageException {
        long pid = -1;
        boolean json = false;
        boolean reports = false;
        Duration interval = null;
        long count = -1;
        Map<String, String> given = new HashMap<>();
        for (int i = 0; i < argv.size(); i++) {
            OptionValues.Split split = OptionValues.split(argv.get(i));
            String arg = split.option();
            String inline = split.inline();
            if (VALUE_OPTIONS.contains(arg)) {
                once(given, arg, arg);
                inline = inline == null ? nextNonEmpty(argv, ++i, arg) : nonEmpty(arg, inline);
            } else if (inline != null && FLAGS.contains(arg)) {
                throw new UsageException(arg + " takes no value, got '" + argv.get(i) + "'");
            }
            switch (arg) {
                case "--json" -> {
                    once(given, arg, arg);
                    json = true;
                }
                case "--reports" -> {
                    once(given, arg, arg);
                    reports = true;
                }
                case "--watch" -> interval = duration(arg, inline, false);
                case "--count" -> count = count(arg, inline, 1, Long.MAX_VALUE);
                default -> {
                    if (arg.startsWith("-")) {
                        // as given, with a value inline: "--frobnicate=1" was said to take no value, as a flag would
                        throw new UsageException("unknown option '" + argv.get(i) + "'");
                    }
                    if (pid != -1) {
                        throw new UsageException("one process id at a time, got '" + pid + "' and '" + arg + "'");
                    }
                    pid = pid(arg);
                }
            }
        }
        if (pid == -1 && (json || reports || interval != null || count != -1)) {
            throw new UsageException("--json, --reports, --watch and --count need a process id: offheap inspect <pid> ...");
        }
        if (count == -1) {
            count = interval == null ? 1 : 0;
        }
        if (interval == null && count != 1) {
            interval = DEFAULT_INTERVAL;
        }
        return new Args(pid, json, interval, count, reports);
    }

    private static long pid(String text) throws UsageException {
        long pid;
        try {
            pid = Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw new UsageException("expected a process id (a positive number, see 'offheap inspect' for the list), got '"
                    + text + "'");
        }
        if (pid <= 0) {
            throw new UsageException("expected a process id (a positive number), got " + pid);
        }
        return pid;
    }

    @Override
    public void run(List<String> argv, PrintStream out, PrintStream err) throws UsageException, CommandException {
        Args args = parse(argv);
        if (args.pid() == -1) {
            list(out);
            return;
        }
        ExecutorService calls = callExecutor();
        try {
            inspect(args, calls, out, err);
        } finally {
            // a thread still blocked on a JVM that never answered is a daemon, which the exit does not wait for
            calls.shutdownNow();
        }
    }

    /**
     * The calls to the inspected JVM, each on a thread of its own while the command waits for it at most
     * {@link #answerTimeout}: daemon threads (one blocked on a JVM that never answers must not keep this JVM
     * from exiting), which the calls of a watch reuse: a snapshot after a snapshot that answered runs on the
     * thread that took it, idle in between however long the interval.
     */
    private static ExecutorService callExecutor() {
        ThreadFactory daemons = Thread.ofPlatform().daemon().name("inspect-call-", 0).factory();
        return new ThreadPoolExecutor(0, Integer.MAX_VALUE, Long.MAX_VALUE, TimeUnit.NANOSECONDS,
                new SynchronousQueue<>(), daemons);
    }

    private void inspect(Args args, ExecutorService calls, PrintStream out, PrintStream err) throws CommandException {
        long pid = args.pid();
        Connection connection;
        try {
            connection = answered(calls, () -> connect(pid), Connection::close);
        } catch (TimeoutException e) {
            throw new CommandException(notAnswering(pid) + " to the attach; is it stopped (SIGSTOP, a debugger) or hung?");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof CommandException c) {
                throw c;
            }
            throw new CommandException("cannot attach to process " + pid + ": " + e.getCause(), e.getCause());
        }
        try {
            for (long taken = 0; args.count() == 0 || taken < args.count(); taken++) {
                if (taken > 0) {
                    sleep(args.interval());
                }
                Snapshot snapshot;
                try {
                    snapshot = answered(calls, () -> Snapshot.collect(connection.server(), pid, args.reports()), s -> { });
                } catch (TimeoutException | ExecutionException e) {
                    Throwable cause = e instanceof ExecutionException ? e.getCause() : null;
                    if (cause instanceof Error error) {
                        throw error;
                    }
                    if (taken == 0) {
                        throw new CommandException("cannot read JVM " + pid + "'s MBeans: "
                                + (cause == null ? notAnswering(pid) : cause.toString()));
                    }
                    // watching a JVM that has ended, stopped or whose agent went away: the snapshots so far stand
                    err.println("offheap inspect: JVM " + pid + " can no longer be read ("
                            + (cause == null ? notAnswering(pid) : cause.getMessage()) + "); stopped after " + taken
                            + (taken == 1 ? " snapshot" : " snapshots"));
                    return;
                }
                if (taken > 0 && !args.json()) {
                    out.println();
                }
                out.print(args.json() ? SnapshotReport.json(snapshot) : SnapshotReport.text(snapshot));
                out.flush();
                if (out.checkError()) {
                    // nobody reads any more (`inspect --watch 1s | head`): a PrintStream keeps its write failures
                    // to itself, and the watch would go on for as long as the JVM runs
                    return;
                }
            }
        } finally {
            closeWithin(calls, connection);
        }
    }

    /** Closes the connection on a thread of the executor, waiting for it at most {@link #CLOSE_MILLIS}. */
    private static void closeWithin(ExecutorService calls, Connection connection) {
        Future<?> closing = calls.submit(connection::close);
        try {
            closing.get(CLOSE_MILLIS, TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            // closing tells the JVM's agent, which a stopped JVM never answers, and an ended one cannot
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private String notAnswering(long pid) {
        return "JVM " + pid + " did not answer within " + Durations.format(answerTimeout);
    }

    /** A call to the inspected JVM, which may throw what its answer brings. */
    private interface Call<T> {
        T call() throws Exception;
    }

    /**
     * Makes a call to the inspected JVM on a thread of the executor and waits at most {@link #answerTimeout} for it.
     *
     * @param calls the executor of the command's calls
     * @param call the call
     * @param late gets the result of a call that answers after the wait gave up (to close a connection)
     * @return what the call returned
     * @throws TimeoutException if it did not answer in time (the thread is left to the answer, if one comes)
     * @throws ExecutionException with what the call threw
     * @throws CommandException if interrupted while waiting
     */
    private <T> T answered(ExecutorService calls, Call<T> call, Consumer<? super T> late)
            throws TimeoutException, ExecutionException, CommandException {
        CompletableFuture<T> answer = new CompletableFuture<>();
        calls.execute(() -> {
            try {
                answer.complete(call.call());
            } catch (Throwable t) {
                answer.completeExceptionally(t);
            }
        });
        try {
            return answer.get(answerTimeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            answer.thenAccept(late);
            throw e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            answer.thenAccept(late);
            throw new CommandException("interrupted");
        }
    }

    private static void sleep(Duration interval) throws CommandException {
        try {
            Thread.sleep(interval);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CommandException("interrupted");
        }
    }

    /** Prints the attachable JVMs of this machine and user, this one left out. */
    private static void list(PrintStream out) {
        long self = ProcessHandle.current().pid();
        List<VirtualMachineDescriptor> vms = new ArrayList<>(VirtualMachine.list());
        vms.removeIf(vm -> vm.id().equals(Long.toString(self)));
        vms.sort(Comparator.comparingLong(vm -> parseOr(vm.id())));
        if (vms.isEmpty()) {
            out.println("No other JVM of this user runs on this machine (or none allows attaching).");
            return;
        }
        out.println("JVMs that 'offheap inspect <pid>' can inspect:");
        int width = vms.stream().mapToInt(vm -> vm.id().length()).max().orElse(1);
        for (VirtualMachineDescriptor vm : vms) {
            String name = vm.displayName().isBlank() ? "(no main class reported)" : vm.displayName();
            out.println("  " + " ".repeat(width - vm.id().length()) + vm.id() + "  " + abbreviate(name, 100));
        }
    }

    private static long parseOr(String id) {
        try {
            return Long.parseLong(id);
        } catch (NumberFormatException e) {
            return Long.MAX_VALUE;
        }
    }

    private static String abbreviate(String text, int max) {
        return text.length() <= max ? text : text.substring(0, max - 3) + "...";
    }

    /** A connection to a JVM's MBean server; closing it closes the JMX connection, if there is one. */
    record Connection(MBeanServerConnection server, JMXConnector connector) implements AutoCloseable {
        /** Closes the JMX connection, which tells the JVM's agent: one that does not answer blocks this. */
        @Override
        public void close() {
            if (connector != null) {
                try {
                    connector.close();
                } catch (IOException e) {
                    // the JVM may have ended: nothing is left to close
                }
            }
        }
    }

    /**
     * Connects to a JVM's MBean server: this JVM's own platform server (the JDK forbids attaching to oneself by
     * default), else through the attach mechanism and the JVM's local JMX agent.
     *
     * @throws CommandException if there is no such JVM, it refuses the attach, or its agent cannot be reached
     */
    static Connection connect(long pid) throws CommandException {
        if (pid == ProcessHandle.current().pid()) {
            return new Connection(ManagementFactory.getPlatformMBeanServer(), null);
        }
        if (ProcessHandle.of(pid).isEmpty()) {
            throw new CommandException("no process " + pid + " runs on this machine; 'offheap inspect' lists the JVMs");
        }
        VirtualMachine vm;
        try {
            vm = VirtualMachine.attach(Long.toString(pid));
        } catch (AttachNotSupportedException | IOException | SecurityException e) {
            throw new CommandException("cannot attach to process " + pid + ": " + e.getMessage()
                    + " (is it a JVM of this user? JVMs started with -XX:+DisableAttachMechanism cannot be inspected)");
        }
        try {
            String address = vm.startLocalManagementAgent();
            JMXConnector connector = JMXConnectorFactory.connect(new JMXServiceURL(address));
            try {
                return new Connection(connector.getMBeanServerConnection(), connector);
            } catch (IOException | RuntimeException e) {
                connector.close();
                throw e;
            }
        } catch (IOException | RuntimeException e) {
            throw new CommandException("cannot reach the JMX agent of JVM " + pid + ": " + e);
        } finally {
            try {
                vm.detach();
            } catch (IOException e) {
                // the JMX connection does not need the attach connection: a failed detach changes nothing
            }
        }
    }
}
