package dev.offheap.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Says why a folder a command writes to ({@code --out}, {@code --db}) could not be created, in words where a
 * file is in its way: {@code Files.createDirectories} reports that as a {@code FileAlreadyExistsException} or a
 * "Not a directory" {@code FileSystemException}, whose names do not say what to change. Stateless and
 * thread-safe.
 */
public final class Folders {
    private Folders() {
    }

    /**
     * @param dir the folder that could not be created, as the command line named it
     * @param e what {@code Files.createDirectories(dir)} threw
     * @return "X exists and is not a folder" where {@code dir}, or the nearest part of its path that exists, is
     *         something other than a folder (X being that path); else {@code e} as text
     */
    public static String whyNotCreated(Path dir, IOException e) {
        for (Path p = dir; p != null; p = p.getParent()) {
            if (Files.exists(p)) {
                return Files.isDirectory(p) ? e.toString() : p + " exists and is not a folder";
            }
        }
        return e.toString();
    }
}
