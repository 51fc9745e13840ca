package dev.pulsebus.testing;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The files this process holds open, read from {@code /proc/self/fd} (Linux). */
public final class OpenFiles {

    private OpenFiles() {
    }

    /** Whether open files can be listed here. */
    public static boolean supported() {
        return Files.isDirectory(Path.of("/proc/self/fd"));
    }

    /** The open files under {@code dir}. */
    public static List<Path> under(Path dir) throws IOException {
        Path real = dir.toRealPath();
        List<Path> open = new ArrayList<>();
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(Path.of("/proc/self/fd"))) {
            for (Path fd : fds) {
                try {
                    Path target = Files.readSymbolicLink(fd);
                    if (target.startsWith(real)) {
                        open.add(target);
                    }
                } catch (IOException gone) {
                    // closed since the listing
                }
            }
        }
        return open;
    }
}
