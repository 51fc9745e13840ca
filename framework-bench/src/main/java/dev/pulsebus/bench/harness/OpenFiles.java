package dev.pulsebus.bench.harness;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * A process's open-file limit and how many it has open, from {@code /proc} (Linux), for the suites that
 * hold thousands of sockets. HotSpot on Linux already raises its soft limit to the hard one at start
 * ({@code -XX:+MaxFDLimit}, on by default) and a child JVM inherits it, so the room left is the hard limit
 * the shell gave; where it is too low for a row, the row measures at what fits and says so.
 *
 * @param soft the soft limit ({@code ulimit -Sn}), {@code Long.MAX_VALUE} for unlimited
 * @param hard the hard limit ({@code ulimit -Hn}), {@code Long.MAX_VALUE} for unlimited
 * @param open the descriptors open now
 */
public record OpenFiles(long soft, long hard, long open) {

    /** Kept free for what a process opens besides the sockets counted (jars, pipes, logs, databases). */
    static final int MARGIN = 128;

    /** The limits of process {@code pid}; unlimited where {@code /proc} cannot tell (not Linux). */
    public static OpenFiles of(long pid) {
        Path proc = Path.of("/proc", Long.toString(pid));
        try (Stream<Path> fds = Files.list(proc.resolve("fd"))) {
            long open = fds.count();
            for (String line : Files.readAllLines(proc.resolve("limits"))) {
                if (line.startsWith("Max open files")) {
                    List<String> f = List.of(line.substring("Max open files".length()).trim().split("\\s+"));
                    return new OpenFiles(limit(f.get(0)), limit(f.get(1)), open);
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux, or the process is gone: nothing known, nothing limited
        }
        return new OpenFiles(Long.MAX_VALUE, Long.MAX_VALUE, 0);
    }

    public static OpenFiles ofThisProcess() {
        return of(ProcessHandle.current().pid());
    }

    private static long limit(String s) {
        return s.equals("unlimited") ? Long.MAX_VALUE : Long.parseLong(s);
    }

    /** How many more descriptors fit under the soft limit, {@link #MARGIN} kept free; never below 0. */
    public long room() {
        return soft == Long.MAX_VALUE ? Long.MAX_VALUE : Math.max(0, soft - open - MARGIN);
    }

    /**
     * How many of {@code wanted} items fit when each holds {@code perItem} descriptors here; rounded down
     * to a hundred once it is at least one.
     */
    public int fit(int wanted, int perItem) {
        long fits = room() / perItem;
        if (fits >= wanted) {
            return wanted;
        }
        return (int) (fits >= 100 ? fits / 100 * 100 : fits);
    }

    /** For a row's note: why it measured fewer than it wanted. */
    public String shortOf(int wanted, int measured) {
        return String.format("measured at %d, not %d: the open-file limit (soft %s, hard %s, %d open) has room"
                + " for no more (raise it with ulimit -n, e.g. ulimit -n 20000, before mvn)", measured, wanted,
                show(soft), show(hard), open);
    }

    private static String show(long limit) {
        return limit == Long.MAX_VALUE ? "unlimited" : Long.toString(limit);
    }
}
