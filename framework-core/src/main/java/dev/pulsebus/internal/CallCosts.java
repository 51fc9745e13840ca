package dev.pulsebus.internal;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * What the bot's own code costs: CPU time and bytes allocated per module, per command and per handler,
 * measured on a sample of calls with the JVM's per-thread counters ({@code bus.cost_sample_every}).
 *
 * <p>A site (a command, a handler) measures its first call, then one call in {@code sampleEvery}, or fewer when
 * its calls are so short that measuring one would cost more than {@link #BUDGET} of them (a measurement reads
 * four counters, several microseconds where reading a thread's CPU clock is a system call): an unmeasured call
 * costs a decrement and a branch, and allocates nothing. A measured call's figures stand for the calls since
 * the previous measurement (and is counted when it starts), so the totals ({@code pulsebus_module_cpu_seconds_total{module}},
 * {@code pulsebus_module_allocated_bytes_total{module}}, {@code pulsebus_module_invocations_total{module}}) are
 * estimates whose error shrinks with the number of calls; a command's CPU histogram
 * ({@code pulsebus_command_cpu_seconds{command,module}}) has one observation per measured call.
 *
 * <p>On a virtual thread (lane workers are) the counters read are its carrier's, which runs nothing else while
 * it is mounted: a call that resumes on another carrier is not measured; one that parks (a KV call to a remote
 * database, a blocking send) and resumes on the same carrier may include what the carrier ran meanwhile. A
 * call's cost includes what it calls on its own thread (a command routed from a handler, inline handlers of
 * an event it publishes). Labels are bounded: {@link #MAX_MODULES} modules and {@link #MAX_COMMANDS} command
 * histograms, further ones counted as {@code other}; {@link #MAX_SITES} sites listed per module.
 *
 * <p>Thread-safe; the sampling state of a site is plain and racy on purpose (a lost update only moves which
 * call is measured). Internal to PulseBus: not an API.
 */
public final class CallCosts {

    /** The default of {@code bus.cost_sample_every}. */
    public static final int DEFAULT_SAMPLE_EVERY = 16;
    /** The largest {@code bus.cost_sample_every}, and the most calls one measurement stands for. */
    public static final int MAX_INTERVAL = 1 << 16;
    /** A module's name no module owns (the bot's own handlers): not measured. */
    public static final String NO_MODULE = SlowCalls.NO_MODULE;
    /** What measuring may cost at most, as a share of the calls it measures. */
    static final double BUDGET = 0.01;
    static final int MAX_MODULES = 256;
    static final int MAX_COMMANDS = 128;
    static final int MAX_SITES = 256;
    /** Nested measured calls on one thread deeper than this are not measured. */
    private static final int DEPTH = 8;
    /** A window's start is a snapshot at least this old ... */
    private static final long MIN_WINDOW_NANOS = TimeUnit.SECONDS.toNanos(10);
    /** ... and at most about this old, when the report is asked for often enough. */
    private static final long MAX_WINDOW_NANOS = TimeUnit.SECONDS.toNanos(60);
    private static final Duration[] CPU_BUCKETS = {Duration.ofNanos(10_000), Duration.ofNanos(50_000),
        Duration.ofNanos(100_000), Duration.ofNanos(500_000), Duration.ofMillis(1), Duration.ofMillis(5),
        Duration.ofMillis(10), Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofSeconds(1)};

    private static final CallCosts OFF = new CallCosts(null, 0, () -> 0, System::nanoTime);

    private final int sampleEvery;
    private final @Nullable MeterRegistry registry;
    private final LongSupplier processCpuNanos;
    private final LongSupplier nanoTime;
    private final ConcurrentHashMap<String, Module> modules = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Timer> commandTimers = new ConcurrentHashMap<>();
    /** Snapshots a report's window starts from, oldest first. Guarded by {@code this}. */
    private final ArrayDeque<Totals> windows = new ArrayDeque<>();

    private CallCosts(@Nullable MeterRegistry registry, int sampleEvery, LongSupplier processCpuNanos,
                      LongSupplier nanoTime) {
        this.registry = registry;
        this.sampleEvery = sampleEvery;
        this.processCpuNanos = processCpuNanos;
        this.nanoTime = nanoTime;
        if (sampleEvery > 0) {
            // from the JVM's start: the process's CPU is read with the first report, not at start
            windows.add(new Totals(nanoTime.getAsLong(), 0, Map.of()));
        }
    }

    /**
     * A table measuring one call in {@code sampleEvery} of each site (0: none, the table stays empty); its
     * meters go to {@code registry} when there is one. Nothing is measured when the JVM cannot read a thread's
     * CPU time or allocated bytes.
     */
    public static CallCosts create(@Nullable MeterRegistry registry, int sampleEvery) {
        if (sampleEvery < 0 || sampleEvery > MAX_INTERVAL) {
            throw new IllegalArgumentException("sampleEvery must be 0 to " + MAX_INTERVAL + ", was " + sampleEvery);
        }
        if (sampleEvery == 0) {
            return OFF;
        }
        // the management beans load with the first measured call, not at start
        return new CallCosts(registry, sampleEvery, Counters::processCpu, System::nanoTime);
    }

    /** A table that measures nothing. */
    public static CallCosts off() {
        return OFF;
    }

    /** One call in how many is measured (at most); 0: off. */
    public int sampleEvery() {
        return sampleEvery;
    }

    /**
     * Where the calls of {@code kind} ({@code "command"}, {@code "handler"}) {@code name} of {@code module} are
     * measured; {@code null} when nothing is (off, or a handler no module owns). The same site for the same
     * three (a module reloaded goes on adding to its figures).
     */
    public @Nullable Site site(String module, String kind, String name) {
        if (sampleEvery == 0 || module.equals(NO_MODULE)) {
            return null;
        }
        Module m = module(module);
        Site s = m.sites.get(kind + ' ' + name);
        if (s != null) {
            return s;
        }
        synchronized (m) {
            boolean listed = m.sites.size() < MAX_SITES;
            String key = listed ? kind + ' ' + name : "other";
            return m.sites.computeIfAbsent(key, k -> new Site(m, listed ? kind : "other", listed ? name : "other",
                    kind.equals("command") ? commandTimer(m.name, name) : null));
        }
    }

    private Module module(String name) {
        Module m = modules.get(name);
        if (m != null) {
            return m;
        }
        String label = modules.size() < MAX_MODULES ? name : "other";
        return modules.computeIfAbsent(label, l -> new Module(l, registry));
    }

    private @Nullable Timer commandTimer(String module, String command) {
        MeterRegistry r = registry;
        if (r == null) {
            return null;
        }
        String label = commandTimers.containsKey(command) || commandTimers.size() < MAX_COMMANDS ? command : "other";
        return commandTimers.computeIfAbsent(label, c -> Timer.builder("pulsebus.command.cpu")
                .description("CPU time of a command's measured calls (one call in bus.cost_sample_every or fewer),"
                        + " on the thread that ran it")
                .tag("command", c).tag("module", c.equals("other") ? "other" : module)
                .serviceLevelObjectives(CPU_BUCKETS).register(r));
    }

    /** A module's totals: estimated over all its calls from the measured ones. */
    private static final class Module {
        final String name;
        final LongAdder calls = new LongAdder();
        final LongAdder cpuNanos = new LongAdder();
        final LongAdder bytes = new LongAdder();
        final LongAdder measured = new LongAdder();
        final ConcurrentHashMap<String, Site> sites = new ConcurrentHashMap<>();

        Figures figures() {
            long pending = 0;
            for (Site s : sites.values()) {
                pending += s.pending();
            }
            return new Figures(calls.sum() + pending, cpuNanos.sum(), bytes.sum(), measured.sum());
        }

        Module(String name, @Nullable MeterRegistry registry) {
            this.name = name;
            if (registry != null) {
                FunctionCounter.builder("pulsebus.module.cpu", cpuNanos, a -> a.sum() / 1e9).baseUnit("seconds")
                        .description("CPU time of the module's handlers and commands, estimated from one call in"
                                + " bus.cost_sample_every").tag("module", name).register(registry);
                FunctionCounter.builder("pulsebus.module.allocated", bytes, LongAdder::sum).baseUnit("bytes")
                        .description("Bytes allocated by the module's handlers and commands, estimated from one call"
                                + " in bus.cost_sample_every").tag("module", name).register(registry);
                FunctionCounter.builder("pulsebus.module.invocations", calls, LongAdder::sum)
                        .description("Calls of the module's handlers and commands, counted at each measured call for"
                                + " the calls since the one before")
                        .tag("module", name).register(registry);
            }
        }
    }

    /**
     * One command's or handler's measurements. {@link #due} on every call; when it says so, {@link #start}
     * before the call and {@link #stop} after it, on the same thread.
     */
    public final class Site {
        private final Module module;
        private final String kind;
        private final String name;
        private final @Nullable Timer cpuTimer;
        private final LongAdder calls = new LongAdder();
        private final LongAdder cpuNanos = new LongAdder();
        private final LongAdder bytes = new LongAdder();
        private final LongAdder measured = new LongAdder();
        /** Calls until the next measured one (the first call is). Plain and racy. */
        private long countdown = 1;
        /** The calls the next measured one stands for: the countdown it ends. Plain and racy. */
        private long counted = 1;
        /** What the call measured now stands for. Plain and racy. */
        private long represents = 1;
        /** Calls one measurement stands for now. Plain and racy. */
        private long interval = sampleEvery;
        /** A moving average of a measured call's time, in nanoseconds. Plain and racy. */
        private long averageNanos;

        private Site(Module module, String kind, String name, @Nullable Timer cpuTimer) {
            this.module = module;
            this.kind = kind;
            this.name = name;
            this.cpuTimer = cpuTimer;
        }

        /** Whether this call is to be measured: a decrement and a branch when it is not. */
        public boolean due() {
            if (--countdown > 0) {
                return false;
            }
            long n = counted;
            long next = interval;
            countdown = next;
            counted = next;
            represents = n;
            calls.add(n);
            module.calls.add(n);
            return true;
        }

        /** Reads the calling thread's counters before the call; returns what {@link #stop} takes (-1: not measured). */
        public int start() {
            if (!Counters.AVAILABLE) {
                return -1;
            }
            Probe p = Probe.CURRENT.get();
            int frame = p.depth;
            if (frame == DEPTH) {
                return -1;
            }
            long id = Counters.carrier();
            if (id == 0) {
                return -1;
            }
            p.depth = frame + 1;
            int at = frame * 4;
            long[] v = p.values;
            v[at] = id;
            v[at + 1] = Counters.bytes(id);
            v[at + 2] = Counters.cpu(id);
            v[at + 3] = System.nanoTime();
            return frame;
        }

        /** Reads the counters again after the call started by {@code frame}, and adds what it cost. */
        public void stop(int frame) {
            if (frame < 0) {
                return;
            }
            long ended = System.nanoTime();
            Probe p = Probe.CURRENT.get();
            int at = frame * 4;
            long[] v = p.values;
            p.depth = frame;
            long id = v[at];
            long cpuEnd = Counters.cpu(id);
            long bytesEnd = Counters.bytes(id);
            if (Counters.carrier() != id || cpuEnd < 0 || bytesEnd < 0 || v[at + 1] < 0 || v[at + 2] < 0) {
                return; // resumed on another carrier (its counters say nothing of this call), or one gone
            }
            long cpu = cpuEnd - v[at + 2];
            long allocated = bytesEnd - v[at + 1];
            long wall = ended - v[at + 3];
            // the reads' own cost lands partly inside the bracket; a thread's CPU time never exceeds its wall time
            record(Math.max(0, Math.min(cpu, wall)), Math.max(0, allocated), wall);
        }

        /** Ends the measurement started by {@code frame} without counting it (the call waited on something). */
        public void discard(int frame) {
            if (frame >= 0) {
                Probe.CURRENT.get().depth = frame;
            }
        }

        private void record(long cpu, long allocated, long wall) {
            long represents = this.represents;
            cpuNanos.add(cpu * represents);
            bytes.add(allocated * represents);
            measured.increment();
            module.cpuNanos.add(cpu * represents);
            module.bytes.add(allocated * represents);
            module.measured.increment();
            if (cpuTimer != null) {
                cpuTimer.record(cpu, TimeUnit.NANOSECONDS);
            }
            long avg = averageNanos == 0 ? wall : averageNanos + (wall - averageNanos) / 8;
            averageNanos = Math.max(1, avg);
            // measure as often as asked, unless measuring would cost more than BUDGET of the calls measured
            double affordable = Counters.PROBE_NANOS / (BUDGET * averageNanos);
            interval = (long) Math.min(MAX_INTERVAL, Math.max(sampleEvery, Math.ceil(affordable)));
        }

        Figures figures() {
            return new Figures(calls.sum() + pending(), cpuNanos.sum(), bytes.sum(), measured.sum());
        }

        /** Calls since the last measured one, which the counters take in with the next. */
        long pending() {
            return Math.max(0, counted - countdown);
        }

        /** Its key in a report's totals: unique among all modules' sites. */
        String key() {
            return module.name + '\n' + kind + ' ' + name;
        }

        /** The module it belongs to (its label). */
        public String module() {
            return module.name;
        }

        @Override
        public String toString() {
            return kind + " '" + name + "' of module " + module.name;
        }
    }

    /** The frames of the measured calls running on one thread. */
    private static final class Probe {
        static final ThreadLocal<Probe> CURRENT = ThreadLocal.withInitial(Probe::new);
        final long[] values = new long[DEPTH * 4];
        int depth;
    }

    // ------------------------------------------------------------------ reports

    /** Lifetime totals of one module or site: estimated calls, CPU and bytes, and how many calls were measured. */
    public record Figures(long calls, long cpuNanos, long allocatedBytes, long measured) {
        Figures minus(@Nullable Figures earlier) {
            return earlier == null ? this : new Figures(calls - earlier.calls, cpuNanos - earlier.cpuNanos,
                    allocatedBytes - earlier.allocatedBytes, measured - earlier.measured);
        }

        /** CPU time per call, in nanoseconds; 0 before a call is measured. */
        public long cpuPerCall() {
            return calls == 0 ? 0 : cpuNanos / calls;
        }

        /** Bytes allocated per call; 0 before a call is measured. */
        public long bytesPerCall() {
            return calls == 0 ? 0 : allocatedBytes / calls;
        }
    }

    /** A site's line in a report: its totals, and those of the report's window. */
    public record SiteReport(String kind, String name, Figures total, Figures window) {
    }

    /** A module's line in a report, its sites sorted by CPU in the window, then in all. */
    public record ModuleReport(String module, Figures total, Figures window, List<SiteReport> sites) {
    }

    /**
     * What the table reports: the window's length and the process's CPU time in it (for each module's share),
     * and the modules sorted by CPU in the window, then in all.
     */
    public record Report(int sampleEvery, long windowNanos, long processCpuNanos, List<ModuleReport> modules) {
    }

    /** Totals at one moment: per module, then per module's site. */
    private record Totals(long nanos, long processCpu, Map<String, Figures> figures) {
    }

    /**
     * The modules' costs, each beside its figures in a window of up to a minute or so: since start, or since a
     * report at least 10 seconds earlier.
     */
    public synchronized Report report() {
        long now = nanoTime.getAsLong();
        Map<String, Figures> figures = new LinkedHashMap<>();
        for (Module m : modules.values()) {
            figures.put(m.name, m.figures());
            for (Site s : m.sites.values()) {
                figures.put(s.key(), s.figures());
            }
        }
        Totals current = new Totals(now, processCpuNanos.getAsLong(), figures);
        // the oldest kept is at most about a minute old, while one that starts a window stays
        while (windows.size() > 1 && now - windows.peekFirst().nanos() > MAX_WINDOW_NANOS
                && now - second().nanos() >= MIN_WINDOW_NANOS) {
            windows.removeFirst();
        }
        Totals start = windows.isEmpty() ? current : windows.peekFirst();
        if (windows.isEmpty() || now - windows.peekLast().nanos() >= MIN_WINDOW_NANOS) {
            windows.addLast(current);
        }
        List<ModuleReport> out = new ArrayList<>();
        for (Module m : modules.values()) {
            List<SiteReport> sites = new ArrayList<>();
            for (Site s : m.sites.values()) {
                Figures total = figures.get(s.key());
                if (total != null) { // else added since the totals were read: in the next report
                    sites.add(new SiteReport(s.kind, s.name, total, total.minus(start.figures().get(s.key()))));
                }
            }
            sites.sort(Comparator.comparingLong((SiteReport s) -> s.window().cpuNanos())
                    .thenComparingLong(s -> s.total().cpuNanos()).reversed());
            Figures total = figures.get(m.name);
            if (total != null) {
                out.add(new ModuleReport(m.name, total, total.minus(start.figures().get(m.name)), List.copyOf(sites)));
            }
        }
        out.sort(Comparator.comparingLong((ModuleReport r) -> r.window().cpuNanos())
                .thenComparingLong(r -> r.total().cpuNanos()).reversed());
        return new Report(sampleEvery, now - start.nanos(), current.processCpu() - start.processCpu(),
                List.copyOf(out));
    }

    private Totals second() {
        var it = windows.iterator();
        it.next();
        return it.next();
    }

    // ------------------------------------------------------------------ the JVM's counters

    /** The JVM's per-thread counters, read for the calling thread or, on a virtual thread, its carrier. */
    static final class Counters {
        private static final com.sun.management.@Nullable ThreadMXBean THREADS = threads();
        private static final com.sun.management.@Nullable OperatingSystemMXBean OS = os();
        /** Carrier threads by name, as a virtual thread's {@code toString} names its carrier. */
        private static final ConcurrentHashMap<String, Long> CARRIERS = new ConcurrentHashMap<>();
        static final boolean AVAILABLE = THREADS != null;
        /** What one measurement's reads take, the least of several when they are first read. */
        static final long PROBE_NANOS = calibrate();

        private Counters() {
        }

        private static com.sun.management.@Nullable ThreadMXBean threads() {
            try {
                if (ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean t
                        && t.isThreadCpuTimeSupported() && t.isThreadCpuTimeEnabled()
                        && t.isThreadAllocatedMemorySupported() && t.isThreadAllocatedMemoryEnabled()) {
                    return t;
                }
            } catch (RuntimeException | LinkageError e) {
                // no management: costs stay off
            }
            return null;
        }

        private static com.sun.management.@Nullable OperatingSystemMXBean os() {
            try {
                return ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean o
                        ? o : null;
            } catch (RuntimeException | LinkageError e) {
                return null;
            }
        }

        private static long calibrate() {
            if (THREADS == null) {
                return 0;
            }
            long best = Long.MAX_VALUE;
            for (int i = 0; i < 16; i++) {
                long begun = System.nanoTime();
                long id = carrier();
                cpu(id);
                bytes(id);
                cpu(id);
                bytes(id);
                carrier();
                best = Math.min(best, System.nanoTime() - begun);
            }
            return Math.max(1, best);
        }

        static long processCpu() {
            return OS == null ? 0 : Math.max(0, OS.getProcessCpuTime());
        }

        /**
         * The id of the platform thread running the caller: its own, or its carrier's on a virtual thread
         * ({@code VirtualThread[#21,name]/runnable@ForkJoinPool-1-worker-1}); 0 when that cannot be told.
         */
        static long carrier() {
            Thread t = Thread.currentThread();
            if (!t.isVirtual()) {
                return t.threadId();
            }
            String s = t.toString();
            int at = s.lastIndexOf('@');
            if (at < 0) {
                return 0;
            }
            String name = s.substring(at + 1);
            Long id = CARRIERS.get(name);
            return id != null ? id : findCarrier(name);
        }

        private static long findCarrier(String name) {
            ThreadGroup root = Thread.currentThread().getThreadGroup();
            while (root != null && root.getParent() != null) {
                root = root.getParent();
            }
            if (root == null) {
                return 0;
            }
            Thread[] threads = new Thread[root.activeCount() + 16];
            int n = root.enumerate(threads, true);
            if (CARRIERS.size() > 1024) {
                CARRIERS.clear(); // carriers come and go: keep the table small
            }
            for (int i = 0; i < n; i++) {
                if (threads[i].getName().equals(name)) {
                    CARRIERS.put(name, threads[i].threadId());
                    return threads[i].threadId();
                }
            }
            return 0;
        }

        /** The thread's CPU time in nanoseconds; -1 when it cannot be read. */
        static long cpu(long thread) {
            com.sun.management.ThreadMXBean t = THREADS;
            return t == null ? -1 : t.getThreadCpuTime(thread);
        }

        /** The bytes the thread has allocated; -1 when they cannot be read. */
        static long bytes(long thread) {
            com.sun.management.ThreadMXBean t = THREADS;
            return t == null ? -1 : t.getThreadAllocatedBytes(thread);
        }
    }
}
