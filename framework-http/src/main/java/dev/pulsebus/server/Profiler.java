package dev.pulsebus.server;

import dev.pulsebus.module.BotModule;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.StringReader;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedClass;
import jdk.jfr.consumer.RecordedClassLoader;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;
import one.convert.Arguments;
import one.convert.FlameGraph;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A profiler for the running server ({@code POST /api/admin/profile}): a JFR recording of up to
 * {@link #MAX_SECONDS} seconds made inside the JVM (no restart, no agent), one at a time, then drawn as a
 * flame graph in which the frames of each module's classes sit under a {@code [module <name>]} frame.
 * Modes: {@code cpu} (where threads run Java code: {@code jdk.ExecutionSample} every 10 ms), {@code alloc}
 * (where bytes are allocated: {@code jdk.ObjectAllocationSample}, weighted by its bytes) and {@code wall}
 * (where time goes, running or waiting: the execution samples, native samples, and parking, locks, sleeps
 * and socket and file I/O of 1 ms or more, weighted by time).
 *
 * <p>Each profile keeps its recording, its collapsed stacks and its flame graph in a folder of its own under
 * a temporary folder, the last {@link #KEPT} profiles only; they are served with a key of their own
 * ({@link Run#key}) that only an admitted caller learns, so that a page can show them without the token.
 * Thread-safe.
 */
final class Profiler implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Profiler.class);
    static final int MAX_SECONDS = 60;
    static final int KEPT = 3;
    /** A wait shorter than this is not in a wall profile (recording every park would be costly). */
    private static final Duration WAIT_THRESHOLD = Duration.ofMillis(1);
    private static final SecureRandom KEYS = new SecureRandom();

    /** What a profile records. */
    enum Mode {
        CPU("samples", "sample"), ALLOC("bytes", "byte"), WALL("µs", "µs");

        /** How the flame graph names its weights. */
        final String units;
        final String unit;

        Mode(String units, String unit) {
            this.units = units;
            this.unit = unit;
        }

        String label() {
            return name().toLowerCase(Locale.ROOT);
        }

        static @Nullable Mode of(String label) {
            for (Mode m : values()) {
                if (m.label().equals(label)) {
                    return m;
                }
            }
            return null;
        }
    }

    /** Where a profile is. */
    enum State { RECORDING, DRAWING, DONE, FAILED }

    /** One profile: asked for, recorded, drawn. */
    static final class Run {
        final String id;
        final String key;
        final Mode mode;
        final int seconds;
        final Instant started;
        private volatile long startedNanos;
        final Path dir;
        private volatile State state = State.RECORDING;
        private volatile @Nullable String error;
        private volatile long samples;
        private volatile int moduleFrames;
        private volatile @Nullable Thread finisher;

        private Run(String id, Mode mode, int seconds, Path dir) {
            this.id = id;
            this.key = HexFormat.of().formatHex(random());
            this.mode = mode;
            this.seconds = seconds;
            this.started = Instant.now();
            this.startedNanos = System.nanoTime();
            this.dir = dir;
        }

        State state() {
            return state;
        }

        @Nullable String error() {
            return error;
        }

        /** Events drawn (samples, allocation samples, waits). */
        long samples() {
            return samples;
        }

        /** Stacks in which a module's frame was found. */
        int moduleFrames() {
            return moduleFrames;
        }

        double elapsedSeconds() {
            return Math.min(seconds, (System.nanoTime() - startedNanos) / 1e9);
        }

        Path recording() {
            return dir.resolve("recording.jfr");
        }

        Path flameGraph() {
            return dir.resolve("flame.html");
        }

        Path stacks() {
            return dir.resolve("stacks.txt");
        }
    }

    /** The profile refused: one is recording already. */
    static final class Busy extends Exception {
        private static final long serialVersionUID = 1L;

        Busy(String message) {
            super(message);
        }
    }

    private final Supplier<Map<String, Class<? extends BotModule>>> modules;
    private final Object lock = new Object();
    /** Newest last. Guarded by {@link #lock}. */
    private final ArrayDeque<Run> runs = new ArrayDeque<>();
    /** Made with the first profile. Guarded by {@link #lock}. */
    private @Nullable Path root;
    private int made;

    /** @param modules the loaded modules' classes by name ({@code ModuleHost.types}) */
    Profiler(Supplier<Map<String, Class<? extends BotModule>>> modules) {
        this.modules = modules;
    }

    private static byte[] random() {
        byte[] b = new byte[16];
        KEYS.nextBytes(b);
        return b;
    }

    /**
     * Starts recording {@code seconds} of {@code mode}; the profile is drawn when it ends, on a virtual thread.
     *
     * @throws Busy when a profile is being recorded or drawn
     */
    Run start(Mode mode, int seconds) throws Busy, IOException {
        if (seconds < 1 || seconds > MAX_SECONDS) {
            throw new IllegalArgumentException("seconds must be 1 to " + MAX_SECONDS + ", was " + seconds);
        }
        Run run;
        List<Path> old = new ArrayList<>();
        synchronized (lock) { // short: a status is read under it on an I/O thread
            Run last = runs.peekLast();
            if (last != null && (last.state == State.RECORDING || last.state == State.DRAWING)) {
                throw new Busy("a " + last.mode.label() + " profile is being made (" + last.id + "): one at a time");
            }
            if (root == null) {
                root = Files.createTempDirectory("pulsebus-profiles-");
            }
            made++;
            String id = String.format(Locale.ROOT, "%d-%s", made, mode.label());
            run = new Run(id, mode, seconds, root.resolve(id));
            runs.addLast(run); // taken: the next start is refused
            while (runs.size() > KEPT) {
                old.add(runs.removeFirst().dir);
            }
        }
        old.forEach(Profiler::delete);
        Recording recording;
        try { // the first recording starts the flight recorder: a second or so, outside the lock
            Files.createDirectories(run.dir);
            recording = recording(mode, run.id);
            recording.start();
            run.startedNanos = System.nanoTime();
        } catch (IOException | RuntimeException e) {
            run.error = e.toString();
            run.state = State.FAILED;
            throw e;
        }
        Run started = run;
        run.finisher = Thread.ofVirtual().name("pulsebus-profile-" + run.id).start(() -> finish(started, recording));
        LOG.info("Profiling: {} for {} s ({})", mode.label(), seconds, run.id);
        return run;
    }

    private static Recording recording(Mode mode, String id) {
        Recording r = new Recording();
        r.setName("pulsebus-profile-" + id);
        r.setToDisk(true);
        switch (mode) {
            case CPU -> r.enable("jdk.ExecutionSample").withPeriod(Duration.ofMillis(10));
            case ALLOC -> r.enable("jdk.ObjectAllocationSample").with("throttle", "2000/s");
            case WALL -> {
                r.enable("jdk.ExecutionSample").withPeriod(Duration.ofMillis(10));
                r.enable("jdk.NativeMethodSample").withPeriod(Duration.ofMillis(20));
                for (String wait : List.of("jdk.ThreadPark", "jdk.JavaMonitorEnter", "jdk.JavaMonitorWait",
                        "jdk.ThreadSleep", "jdk.SocketRead", "jdk.SocketWrite", "jdk.FileRead", "jdk.FileWrite")) {
                    r.enable(wait).withThreshold(WAIT_THRESHOLD).withStackTrace();
                }
            }
        }
        return r;
    }

    private void finish(Run run, Recording recording) {
        try (recording) {
            try {
                Thread.sleep(Duration.ofSeconds(run.seconds));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt(); // closing: keep what was recorded
            }
            recording.stop();
            recording.dump(run.recording());
            run.state = State.DRAWING;
            draw(run);
            run.state = State.DONE;
            LOG.info("Profiled: {} {} samples, {} in modules", run.id, run.samples, run.moduleFrames);
        } catch (IOException | RuntimeException e) {
            run.error = e.toString();
            run.state = State.FAILED;
            LOG.warn("Profile {} failed: {}", run.id, e.toString());
        }
    }

    /** The newest profile, or null before the first. */
    @Nullable Run latest() {
        synchronized (lock) {
            return runs.peekLast();
        }
    }

    /** The kept profile {@code id}, or null. */
    @Nullable Run find(String id) {
        synchronized (lock) {
            for (Run r : runs) {
                if (r.id.equals(id)) {
                    return r;
                }
            }
            return null;
        }
    }

    // ------------------------------------------------------------------ drawing

    private void draw(Run run) throws IOException {
        Owners owners = new Owners(modules.get());
        Map<String, Long> stacks = new HashMap<>();
        long events = 0;
        int marked = 0;
        try (RecordingFile file = new RecordingFile(run.recording())) {
            while (file.hasMoreEvents()) {
                RecordedEvent e = file.readEvent();
                long weight = weight(run.mode, e);
                RecordedStackTrace trace = e.getStackTrace();
                if (weight <= 0 || trace == null) {
                    continue;
                }
                StringBuilder line = new StringBuilder(256);
                boolean inModule = collapse(trace, owners, line);
                leaf(run.mode, e, line);
                stacks.merge(line.toString(), weight, Long::sum);
                events++;
                if (inModule) {
                    marked++;
                }
            }
        }
        List<Map.Entry<String, Long>> sorted = new ArrayList<>(stacks.entrySet());
        sorted.sort(Map.Entry.comparingByKey(Comparator.naturalOrder()));
        StringBuilder collapsed = new StringBuilder();
        for (Map.Entry<String, Long> s : sorted) {
            collapsed.append(s.getKey()).append(' ').append(s.getValue()).append('\n');
        }
        Files.writeString(run.stacks(), collapsed, StandardCharsets.UTF_8);
        Files.write(run.flameGraph(), html(run, collapsed.toString(), events));
        run.samples = events;
        run.moduleFrames = marked;
    }

    /** What an event weighs in {@code mode}'s units; 0: not drawn. */
    private static long weight(Mode mode, RecordedEvent e) {
        String type = e.getEventType().getName();
        return switch (mode) {
            case CPU -> type.equals("jdk.ExecutionSample") ? 1 : 0;
            case ALLOC -> type.equals("jdk.ObjectAllocationSample") ? e.getLong("weight") : 0;
            case WALL -> switch (type) {
                case "jdk.ExecutionSample" -> 10_000;
                case "jdk.NativeMethodSample" -> 20_000;
                default -> e.getDuration().toNanos() / 1000;
            };
        };
    }

    /**
     * Appends the stack, outermost frame first, each frame as {@code Class.method} with its compilation as the
     * converter marks it; a {@code [module <name>]} frame goes before each run of a module's frames. Returns
     * whether a module's frame is in it.
     */
    private static boolean collapse(RecordedStackTrace trace, Owners owners, StringBuilder line) {
        List<RecordedFrame> frames = trace.getFrames();
        if (trace.isTruncated()) {
            line.append("[truncated]");
        }
        String current = null;
        boolean any = false;
        for (int i = frames.size() - 1; i >= 0; i--) {
            RecordedFrame f = frames.get(i);
            if (f.getMethod() == null) {
                continue;
            }
            RecordedClass type = f.getMethod().getType();
            String module = owners.of(type);
            if (module != null && !module.equals(current)) {
                separate(line).append("[module ").append(module).append(']');
                any = true;
            }
            current = module;
            separate(line).append(type.getName()).append('.').append(f.getMethod().getName())
                    .append(suffix(f.getType()));
        }
        return any;
    }

    private static StringBuilder separate(StringBuilder line) {
        return line.isEmpty() ? line : line.append(';');
    }

    /** The converter's colour marks: interpreted, compiled, inlined; native as it is. */
    private static String suffix(String frameType) {
        return switch (frameType) {
            case "Interpreted" -> "_[0]";
            case "Inlined" -> "_[i]";
            case "JIT compiled" -> "_[j]";
            default -> "";
        };
    }

    /** What a wall profile's waits are, and an allocation's class, as a frame of their own on top. */
    private static void leaf(Mode mode, RecordedEvent e, StringBuilder line) {
        if (mode == Mode.ALLOC) {
            RecordedClass c = e.getClass("objectClass");
            separate(line).append(c == null ? "[unknown]" : c.getName()).append("_[k]");
        } else if (mode == Mode.WALL && !e.getEventType().getName().equals("jdk.ExecutionSample")) {
            String type = e.getEventType().getName();
            separate(line).append('[').append(type.equals("jdk.NativeMethodSample") ? "in native code"
                    : type.substring("jdk.".length())).append("]_[k]");
        }
    }

    private static byte[] html(Run run, String collapsed, long events) throws IOException {
        Arguments args = new Arguments("--title", "PulseBus " + run.mode.label() + " profile, " + run.seconds + " s, "
                + events + (events == 1 ? " event (" : " events (") + run.id + ")", "--highlight", "\\[module ");
        FlameGraph graph = new FlameGraph(args);
        graph.parseCollapsed(new StringReader(collapsed));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (PrintStream ps = new PrintStream(out, false, StandardCharsets.UTF_8)) {
            graph.dump(ps);
        }
        // the converter counts samples; an allocation or a wall profile weighs bytes or microseconds
        return out.toString(StandardCharsets.UTF_8).replace("'1 sample'", "'1 " + run.mode.unit + "'")
                .replace("' samples'", "' " + run.mode.units + "'").getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Which module a class belongs to: a jar module's classes by their class loader (when its jar holds
     * several modules, by package), a class path module's by its package, or, when that package is
     * PulseBus's own, by its class and the classes nested in it.
     */
    private static final class Owners {
        private record Owner(String module, String loaderName, String prefix) {
        }

        private final List<Owner> owners = new ArrayList<>();
        private final Map<String, String> cache = new HashMap<>();

        Owners(Map<String, Class<? extends BotModule>> types) {
            types.forEach((name, type) -> {
                ClassLoader loader = type.getClassLoader();
                boolean jar = loader instanceof URLClassLoader && loader.getName() != null
                        && loader.getName().startsWith("module:");
                String pkg = type.getPackageName();
                String prefix = jar || !pkg.startsWith("dev.pulsebus.") || pkg.isEmpty() ? pkg + "." : type.getName();
                owners.add(new Owner(name, jar ? loader.getName() : "", prefix));
            });
        }

        @Nullable String of(RecordedClass type) {
            RecordedClassLoader loader = type.getClassLoader();
            String loaderName = loader == null || loader.getName() == null ? "" : loader.getName();
            String key = loaderName + '\n' + type.getName();
            String known = cache.get(key);
            if (known != null) {
                return known.isEmpty() ? null : known;
            }
            String found = find(loaderName, type.getName());
            if (cache.size() < 100_000) {
                cache.put(key, found == null ? "" : found);
            }
            return found;
        }

        private @Nullable String find(String loaderName, String className) {
            Owner byLoader = null;
            for (Owner o : owners) {
                boolean sameLoader = !o.loaderName.isEmpty() && o.loaderName.equals(loaderName);
                boolean byName = o.prefix.endsWith(".") ? className.startsWith(o.prefix)
                        : className.equals(o.prefix) || className.startsWith(o.prefix + "$");
                if (sameLoader && byName) {
                    return o.module;
                }
                if (sameLoader && byLoader == null) {
                    byLoader = o;
                }
                if (o.loaderName.isEmpty() && byName && loaderName.indexOf("module:") != 0) {
                    return o.module;
                }
            }
            return byLoader == null ? null : byLoader.module;
        }
    }

    /** Stops a profile being recorded (what it has is drawn), then deletes every profile. */
    @Override
    public void close() {
        Run last = latest();
        Thread finisher = last == null ? null : last.finisher;
        if (finisher != null) {
            finisher.interrupt();
            try {
                finisher.join(Duration.ofSeconds(10));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        synchronized (lock) {
            for (Run r : runs) {
                delete(r.dir);
            }
            runs.clear();
            if (root != null) {
                delete(root);
            }
        }
    }

    private static void delete(Path dir) {
        try (var files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    // a file in use: the temporary folder's cleaner takes it
                }
            });
        } catch (IOException e) {
            // gone already
        }
    }
}
