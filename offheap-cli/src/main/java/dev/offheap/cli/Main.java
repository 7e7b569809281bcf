package dev.offheap.cli;

import java.io.PrintStream;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * Entry point of the {@code offheap} command. Exit codes: 0 success, 1 the command failed, 2 the
 * command line was not understood (the usage goes to stderr).
 */
public final class Main {
    /** Exit code of a command that ran and failed. */
    public static final int FAILED = 1;
    /** Exit code of a command line that was not understood. */
    public static final int USAGE = 2;

    private final List<Command> commands;

    /** @param commands the subcommands, in the order they are listed; {@code help} is added last */
    public Main(List<Command> commands) {
        List<Command> all = new java.util.ArrayList<>(commands);
        all.add(new HelpCommand());
        this.commands = List.copyOf(all);
    }

    /** @return the standard command set */
    public static Main standard() {
        return new Main(List.of(new dev.offheap.cli.compare.CompareCommand(), new dev.offheap.cli.serve.ServeCommand(),
                new BenchCommand(), new dev.offheap.cli.inspect.InspectCommand()));
    }

    /**
     * Runs the command and exits with its exit code.
     *
     * @param args the command line
     */
    public static void main(String[] args) {
        int code = standard().run(Arrays.asList(args), System.out, System.err);
        System.out.flush();
        System.exit(code);
    }

    /**
     * Runs a command line.
     *
     * @param args the command line
     * @param out standard output
     * @param err standard error
     * @return the exit code
     */
    public int run(List<String> args, PrintStream out, PrintStream err) {
        if (args.isEmpty() || isHelp(args.getFirst())) {
            out.print(overview());
            return 0;
        }
        if (args.getFirst().equals("--version")) {
            String v = Main.class.getPackage().getImplementationVersion();
            out.println("offheap " + (v == null ? "(development build)" : v));
            return 0;
        }
        Optional<Command> command = find(args.getFirst());
        if (command.isEmpty()) {
            err.println("offheap: unknown " + (args.getFirst().startsWith("-") ? "option" : "command") + " '"
                    + args.getFirst() + "'");
            err.println();
            err.print(overview());
            return USAGE;
        }
        Command c = command.get();
        List<String> rest = args.subList(1, args.size());
        if (rest.stream().anyMatch(Main::isHelp)) {
            out.print(c.help());
            return 0;
        }
        try {
            c.run(rest, out, err);
            return 0;
        } catch (UsageException e) {
            err.println("offheap " + c.name() + ": " + e.getMessage());
            err.println();
            err.print(c.usage());
            err.println("Run 'offheap " + c.name() + " --help' for the options.");
            return USAGE;
        } catch (CommandException e) {
            err.println("offheap " + c.name() + ": " + e.getMessage());
            return FAILED;
        }
    }

    /** @return the overview printed by {@code offheap --help} */
    public String overview() {
        StringBuilder sb = new StringBuilder();
        sb.append("offheap: data out of the JVM heap, and the measurements that show when it pays off.\n\n");
        sb.append("Usage: offheap <command> [options]\n\nCommands:\n");
        int width = commands.stream().mapToInt(c -> c.name().length()).max().orElse(4);
        for (Command c : commands) {
            sb.append("  ").append(c.name()).append(" ".repeat(width - c.name().length())).append("  ")
                    .append(c.summary()).append('\n');
        }
        sb.append("\nRun 'offheap <command> --help' for a command's options.\n");
        return sb.toString();
    }

    Optional<Command> find(String name) {
        return commands.stream().filter(c -> c.name().equals(name)).findFirst();
    }

    static boolean isHelp(String arg) {
        return arg.equals("--help") || arg.equals("-h");
    }

    /** {@code offheap help [command]}. */
    private final class HelpCommand implements Command {
        @Override
        public String name() {
            return "help";
        }

        @Override
        public String summary() {
            return "show the commands, or the options of one: offheap help <command>";
        }

        @Override
        public String usage() {
            return "Usage: offheap help [command]\n";
        }

        @Override
        public String help() {
            return usage() + "\nShows the list of commands, or the help of one command.\n";
        }

        @Override
        public void run(List<String> args, PrintStream out, PrintStream err) throws UsageException {
            if (args.isEmpty()) {
                out.print(overview());
                return;
            }
            if (args.size() > 1) {
                throw new UsageException("one command at a time");
            }
            Command c = find(args.getFirst()).orElseThrow(() -> new UsageException("unknown command '"
                    + args.getFirst() + "' (commands: "
                    + String.join(", ", commands.stream().map(Command::name).toList()) + ")"));
            out.print(c.help());
        }
    }
}
