package dev.offheap.cli;

/** Entry point of the {@code offheap} command (skeleton; subcommands follow). */
public final class Main {
    private Main() {
    }

    /**
     * Runs the command.
     *
     * @param args the command line
     */
    public static void main(String[] args) {
        System.out.println("offheap: subcommands follow");
    }
}
