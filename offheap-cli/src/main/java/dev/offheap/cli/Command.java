package dev.offheap.cli;

import java.io.PrintStream;
import java.util.List;

/** A subcommand of {@code offheap}. */
public interface Command {
    /** @return the name users type */
    String name();

    /** @return one line for the command list */
    String summary();

    /** @return the full help text, starting with the usage lines */
    String help();

    /** @return the usage lines only, shown with a usage error */
    String usage();

    /**
     * Runs the command.
     *
     * @param args the arguments after the command name ({@code --help} is handled by the caller)
     * @param out where results and progress go
     * @param err where diagnostics go
     * @throws UsageException if the arguments make no sense (exit code 2)
     * @throws CommandException if the command fails (exit code 1)
     */
    void run(List<String> args, PrintStream out, PrintStream err) throws UsageException, CommandException;
}
