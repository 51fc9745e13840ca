package dev.pulsebus.command;

import dev.pulsebus.event.AskException;
import dev.pulsebus.internal.CallCosts;
import dev.pulsebus.internal.LruTable;
import dev.pulsebus.internal.RunningHandler;
import dev.pulsebus.internal.SlowCalls;
import dev.pulsebus.internal.SlowTraces;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Matcher;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link CommandRouter}: a volatile {@link Snapshot} of compiled commands read without a lock by
 * {@link #route}, replaced under {@link #lock} by {@link #register} and unregistering.
 */
final class DefaultCommandRouter implements CommandRouter {

    private static final Logger LOG = LoggerFactory.getLogger(CommandRouter.class);

    private final PrefixSet prefixes;
    private final String shownPrefix;
    private final boolean requireMention;
    private final boolean fold;
    private final boolean spaceAfterPrefix;
    private final boolean replyToUnknown;
    private final Clock clock;
    private final int capacity;
    private final QuotaStore quotaStore;
    private final @Nullable SharedControls shared;
    private final MeterRegistry registry;
    private final MessageCatalog catalog;
    private final LongAdder unknown = new LongAdder();
    private final SlowCalls slowCalls;
    private final CallCosts costs;
    private final @Nullable ObservationRegistry observations;
    /** The blocking commands running now, each on its virtual thread (at most {@code maxBlockingCalls}). */
    private final java.util.concurrent.ConcurrentHashMap<Thread, Entry> blockingRunning =
            new java.util.concurrent.ConcurrentHashMap<>();
    /** One less than {@link CommandRouter.Builder#latencySampling}: a call is timed when its count masks to 0. */
    private final int sampleMask;
    /**
     * {@code pulsebus_command_duration_seconds{outcome}}, indexed by {@link Outcome#ordinal()}, for the
     * outcomes of a matched command; null without a registry.
     */
    private final Timer @Nullable [] durations;
    private final Semaphore blockingSlots;

    private final Object lock = new Object();
    /** Top-level commands in registration order. Guarded by {@link #lock}. */
    private final List<Entry> commands = new ArrayList<>();
    private final Map<Entry, List<Meter>> meters = new HashMap<>();
    private volatile Snapshot snapshot;

    /** What routing reads: names (and aliases) of top-level commands, and the pattern commands. */
    @SuppressWarnings("ArrayRecordComponent") // read on every message: an array, never compared or exposed
    private record Snapshot(NameTable<Entry> names, Entry[] patterns, List<Entry> commands) {
    }

    DefaultCommandRouter(CommandRouter.Builder b, List<String> prefixList) {
        this.prefixes = new PrefixSet(prefixList);
        this.shownPrefix = prefixList.get(0);
        this.requireMention = b.requireMention;
        this.fold = b.caseInsensitive;
        this.spaceAfterPrefix = b.spaceAfterPrefix;
        this.replyToUnknown = b.replyToUnknown;
        this.clock = b.clock;
        this.capacity = b.tableCapacity;
        this.quotaStore = b.quotaStore;
        this.shared = b.sharedControls;
        this.registry = b.meterRegistry;
        this.catalog = new MessageCatalog(b.messages);
        this.blockingSlots = new Semaphore(b.maxBlockingCalls);
        this.snapshot = new Snapshot(new NameTable<>(Map.of(), fold), new Entry[0], List.of());
        this.slowCalls = new SlowCalls(registry, b.slowCommand);
        this.costs = b.callCosts;
        this.observations = b.observations;
        this.sampleMask = b.latencySampling - 1;
        this.durations = registry == null ? null : durations(registry);
        if (registry != null) {
            FunctionCounter.builder("pulsebus.commands.misses", unknown, LongAdder::sum)
                    .description("Messages with a command prefix but no such command").register(registry);
        }
        if (b.helpCommand) {
            register(Command.named("help").usage(shownPrefix + "help [command]") // help line: HelpCommand
                    .handler(new HelpCommand(this, shownPrefix, fold, catalog)));
        }
    }

    List<Entry> commands() {
        return snapshot.commands();
    }

    // ------------------------------------------------------------------ routing

    @Override
    public boolean answersUnknown() {
        return replyToUnknown;
    }

    @Override
    public Outcome route(CommandSource source) {
        String text = source.text();
        Snapshot s = snapshot;
        int n = text.length();
        int at = 0;
        while (at < n && text.charAt(at) == ' ') {
            at++;
        }
        int afterPrefix = at < n ? prefixes.match(text, at) : -1;
        if (afterPrefix < 0 || (requireMention && !source.mentionsBot())) {
            return s.patterns().length == 0 ? Outcome.NOT_COMMAND : routePatterns(source, text, s, Outcome.NOT_COMMAND);
        }
        int from = spaceAfterPrefix ? Arguments.skipSpaces(text, afterPrefix) : afterPrefix;
        int to = Arguments.wordEnd(text, from);
        if (to == from) {
            return s.patterns().length == 0 ? Outcome.NOT_COMMAND : routePatterns(source, text, s, Outcome.NOT_COMMAND);
        }
        Entry e = s.names().get(text, from, to);
        if (e == null) {
            // Pattern and keyword commands first: "unknown" is the answer only when nothing takes the message.
            Outcome byPattern = s.patterns().length == 0 ? Outcome.UNKNOWN : routePatterns(source, text, s, Outcome.UNKNOWN);
            if (byPattern == Outcome.UNKNOWN) {
                unknown.increment();
                if (replyToUnknown) {
                    Messages m = catalog.forLocale(source.locale());
                    source.reply(m.format("unknown", "command", text.substring(at, to), "help", shownPrefix + "help"));
                }
            }
            return byPattern;
        }
        int args = Arguments.skipSpaces(text, to);
        while (e.subTable != null && args < n) {
            int subEnd = Arguments.wordEnd(text, args);
            Entry sub = e.subTable.get(text, args, subEnd);
            if (sub == null) {
                break;
            }
            e = sub;
            args = Arguments.skipSpaces(text, subEnd);
        }
        return run(e, new Call(source, e, text, from, to, args, catalog));
    }

    private Outcome routePatterns(CommandSource source, String text, Snapshot s, Outcome otherwise) {
        String folded = null;
        for (Entry e : s.patterns()) {
            if (e.pattern != null) {
                Matcher m = e.pattern.matcher(text);
                if (m.matches()) {
                    List<String> groups = new ArrayList<>(m.groupCount());
                    for (int g = 1; g <= m.groupCount(); g++) {
                        groups.add(m.group(g) == null ? "" : m.group(g));
                    }
                    return run(e, new Call(source, e, text, groups, catalog));
                }
            } else {
                if (folded == null) {
                    folded = fold ? NameTable.fold(text) : text;
                }
                if (folded.contains(e.keyword)) {
                    Call call = new Call(source, e, text, 0, 0, 0, catalog);
                    return run(e, call);
                }
            }
        }
        return otherwise;
    }

    @SuppressWarnings("EnumOrdinal") // timers indexed by outcome: no map lookup per call
    private static Timer[] durations(MeterRegistry registry) {
        Timer[] timers = new Timer[Outcome.values().length];
        for (Outcome o : Outcome.values()) {
            if (o.matched()) {
                timers[o.ordinal()] = Timer.builder("pulsebus.command.duration")
                        .description("Command runs by outcome, from the match to the handler's return (controls,"
                                + " permission and handler; a refusal's answer included)")
                        .tag("outcome", o.label()).register(registry);
            }
        }
        return timers;
    }

    /**
     * Runs a matched command; one call in {@code sampleMask + 1} is timed by outcome and judged slow or not
     * (a blocking one on its own thread, every run).
     */
    private Outcome run(Entry e, Call call) {
        ObservationRegistry o = observations;
        if (o == null || e.blocking) { // a blocking one is observed on its own thread
            return runCosted(e, call);
        }
        SlowTraces.Call context = traced(e, call, RunningHandler.queuedNanos(), RunningHandler.transcriptNanos());
        Observation observed = Observation.createNotStarted(SlowTraces.COMMAND, () -> context, o)
                .contextualName(e.path).start();
        Outcome outcome = Outcome.ERROR;
        try (Observation.Scope scope = observed.openScope()) {
            outcome = runCosted(e, call);
            return outcome;
        } finally {
            context.outcome(outcome.label());
            observed.stop();
        }
    }

    /** A command call's observation context, with how long its message waited before it. */
    private static SlowTraces.Call traced(Entry e, Call call, long queuedNanos, long transcriptNanos) {
        CommandSource s = call.source();
        return new SlowTraces.Call(SlowTraces.COMMAND, e.path, e.slow.module(), s.chatId(), s.userId(), queuedNanos,
                transcriptNanos);
    }

    private Outcome runCosted(Entry e, Call call) {
        CallCosts.Site c = e.cost;
        if (c != null && !e.blocking && c.due()) {
            int frame = c.start();
            try {
                return runSampled(e, call);
            } finally {
                c.stop(frame);
            }
        }
        return runSampled(e, call);
    }

    private Outcome runSampled(Entry e, Call call) {
        if (e.blocking || (e.calls++ & sampleMask) != 0) {
            return runUntimed(e, call);
        }
        long start = System.nanoTime();
        Outcome o = runUntimed(e, call);
        timed(e, o, System.nanoTime() - start);
        return o;
    }

    @SuppressWarnings("EnumOrdinal") // timers indexed by outcome
    private void timed(Entry e, Outcome o, long took) {
        Timer[] timers = durations;
        if (timers != null) {
            timers[o.ordinal()].record(took, TimeUnit.NANOSECONDS);
        }
        e.slow.took(took, "a command call");
    }

    private Outcome runUntimed(Entry e, Call call) {
        CommandSource source = call.source();
        if (e.handler == null) {
            List<String> subs = e.subcommands.stream().map(x -> x.name).toList();
            return refuse(e, call, Outcome.BAD_ARGS, call.messages().format("sub.missing",
                    "command", shownPrefix + e.path, "subs", String.join(", ", subs)));
        }
        if (e.permission != null && !permitted(e, source)) {
            return refuse(e, call, Outcome.DENIED,
                    call.messages().format("denied", "command", shownPrefix + e.path));
        }
        Control[] controls = e.controls;
        int granted = 0;
        boolean inShared = false; // where the grants were made: given back there
        if (controls.length > 0) {
            long now = clock.millis();
            // shared: all decided in one go (one round trip to Redis); else, or while it cannot answer, here
            SharedControls.Decision d = Control.acquireShared(controls, source, now);
            if (d != null && d.answer() != SharedControls.UNAVAILABLE) {
                if (d.refused() >= 0) { // the grants before it were taken back in the store
                    Control c = controls[d.refused()];
                    String answer = d.answer() == Control.SILENT ? null
                            : c.refusal(call.messages(), shownPrefix + e.path, d.answer());
                    return refuse(e, call, c.outcome, answer);
                }
                granted = controls.length;
                inShared = true;
            }
            for (; granted < controls.length; granted++) {
                Control c = controls[granted];
                long r = c.tryAcquire(c.scope.keyOf(source), now);
                if (r != Control.GRANTED) {
                    release(controls, granted, source, now, false);
                    String answer = r == Control.SILENT ? null
                            : c.refusal(call.messages(), shownPrefix + e.path, r);
                    return refuse(e, call, c.outcome, answer);
                }
            }
        }
        if (e.blocking) {
            return runBlocking(e, call, controls, granted, inShared);
        }
        return runHere(e, call, controls, granted, inShared);
    }

    /** Runs the handler on a virtual thread of its own, within {@link #blockingSlots}; its outcome counted when it ends. */
    private Outcome runBlocking(Entry e, Call call, Control[] controls, int granted, boolean inShared) {
        if (!blockingSlots.tryAcquire()) {
            release(controls, granted, call.source(), clock.millis(), inShared);
            return refuse(e, call, Outcome.BUSY, call.messages().format("busy", "command", shownPrefix + e.path));
        }
        ObservationRegistry observing = observations;
        SlowTraces.Call context = observing == null ? null
                : traced(e, call, RunningHandler.queuedNanos(), RunningHandler.transcriptNanos());
        try {
            Thread.ofVirtual().name("pulsebus-command-" + e.path).start(() -> {
                blockingRunning.put(Thread.currentThread(), e);
                CallCosts.Site c = e.cost;
                int frame = c != null && c.due() ? c.start() : -1;
                Observation observed = context == null || observing == null ? Observation.NOOP
                        : Observation.createNotStarted(SlowTraces.COMMAND, () -> context, observing)
                                .contextualName(e.path).start();
                try (Observation.Scope scope = observed.openScope()) {
                    long start = System.nanoTime();
                    Outcome o = runHere(e, call, controls, granted, inShared);
                    // waiting for the user's answers (askText, askInt, await) is not the command's time
                    long waited = Call.takeWaitedNanos();
                    if (context != null) {
                        context.waited(waited);
                        context.outcome(o.label());
                    }
                    if (c != null) {
                        if (waited == 0) {
                            c.stop(frame);
                        } else {
                            c.discard(frame); // parked for an answer: the carrier's counters mix other threads in
                        }
                    }
                    timed(e, o, System.nanoTime() - start - waited);
                } finally {
                    observed.stop();
                    blockingRunning.remove(Thread.currentThread());
                    blockingSlots.release();
                }
            });
        } catch (RuntimeException | OutOfMemoryError cannotStart) {
            blockingSlots.release();
            throw cannotStart;
        }
        return Outcome.OK;
    }

    @Override
    public int interruptBlocking(String module) {
        int n = 0;
        for (java.util.Map.Entry<Thread, Entry> running : blockingRunning.entrySet()) {
            if (running.getValue().slow.module().equals(module)) {
                running.getKey().interrupt();
                n++;
            }
        }
        return n;
    }

    private Outcome runHere(Entry e, Call call, Control[] controls, int granted, boolean inShared) {
        CommandSource source = call.source();
        // a lane's watch names it if it stalls, and an unload of its module interrupts it
        RunningHandler.Named caller = RunningHandler.naming(e.slow);
        try {
            e.handler.handle(call);
            e.count(Outcome.OK);
            return Outcome.OK;
        } catch (AskException ended) {
            String answer = switch (ended.reason()) {
                case TIMEOUT -> call.messages().format("ask.timeout", "command", shownPrefix + e.path);
                case INVALID -> call.messages().format("ask.invalid", "command", shownPrefix + e.path);
                default -> null; // a cancel was answered already; an unload or a close says nothing
            };
            return refuse(e, call, Outcome.OK, answer);
        } catch (CommandArgumentException bad) {
            release(controls, granted, source, clock.millis(), inShared);
            return refuse(e, call, Outcome.BAD_ARGS,
                    call.messages().format("bad_args", "error", bad.getMessage(), "usage", e.usage));
        } catch (Throwable t) {
            e.failures.failed(t, "for user " + source.userId() + " in chat " + source.chatId());
            return refuse(e, call, Outcome.ERROR, call.messages().format("error", "command", shownPrefix + e.path));
        } finally {
            RunningHandler.naming(caller);
        }
    }

    @Override
    public String text(Locale locale, String key, Object... namesAndValues) {
        return catalog.forLocale(locale).format(key, namesAndValues);
    }

    private static boolean permitted(Entry e, CommandSource source) {
        try {
            return e.permission.test(source);
        } catch (RuntimeException ex) {
            e.failures.failed(ex, "in its permission check");
            return false;
        }
    }

    private static void release(Control[] controls, int granted, CommandSource source, long now, boolean inShared) {
        for (int i = granted - 1; i >= 0; i--) {
            controls[i].giveBack(controls[i].scope.keyOf(source), now, inShared);
        }
    }

    /** Counts {@code outcome} and answers, unless {@code answer} is null (already told for this block). */
    private static Outcome refuse(Entry e, Call call, Outcome outcome, String answer) {
        e.count(outcome);
        if (answer != null) {
            try {
                call.reply(answer);
            } catch (RuntimeException ex) {
                LOG.warn("Could not answer {} on {}: {}", outcome.label(), call, ex.toString());
            }
        }
        return outcome;
    }

    // ------------------------------------------------------------------ registration

    @Override
    public Registration register(Command command) {
        return register(SlowCalls.NO_MODULE, command);
    }

    @Override
    public Registration register(String module, Command command) {
        Entry entry = compile(command, "", module);
        synchronized (lock) {
            List<Entry> next = new ArrayList<>(commands);
            next.add(entry);
            Snapshot s = snapshotOf(next);
            commands.add(entry);
            meters.put(entry, bind(entry));
            snapshot = s;
        }
        return new Registered(entry);
    }

    /** What {@link #register} returns: its {@code unregister} removes the entry, once. */
    private final class Registered implements Registration {
        private final Entry entry;

        Registered(Entry entry) {
            this.entry = entry;
        }

        @Override
        public void unregister() {
            DefaultCommandRouter.this.unregister(entry);
        }
    }

    private void unregister(Entry entry) {
        synchronized (lock) {
            if (!commands.remove(entry)) {
                return;
            }
            snapshot = snapshotOf(commands);
            entry.endAsks();
            List<Meter> bound = meters.remove(entry);
            if (registry != null) {
                bound.forEach(registry::remove);
            }
        }
    }

    private Snapshot snapshotOf(List<Entry> entries) {
        Map<String, Entry> names = new LinkedHashMap<>();
        List<Entry> patterns = new ArrayList<>();
        for (Entry e : entries) {
            claim(names, e.name, e, "");
            for (String alias : e.aliases) {
                claim(names, alias, e, "");
            }
            if (e.pattern != null || e.keyword != null) {
                patterns.add(e);
            }
        }
        return new Snapshot(new NameTable<>(names, fold), patterns.toArray(new Entry[0]), List.copyOf(entries));
    }

    private void claim(Map<String, Entry> names, String name, Entry e, String parent) {
        String key = fold ? NameTable.fold(name) : name;
        Entry taken = names.putIfAbsent(key, e);
        if (taken != null) {
            throw new IllegalArgumentException("command name or alias '" + parent + name
                    + "' is already taken by " + shownPrefix + taken.path);
        }
    }

    private Entry compile(Command c, String parentPath, String module) {
        if (c.handler == null && c.subcommands.isEmpty()) {
            throw new IllegalArgumentException("command '" + c.name + "' needs a handler or sub-commands");
        }
        String path = parentPath.isEmpty() ? c.name : parentPath + " " + c.name;
        List<Entry> subs = new ArrayList<>();
        Map<String, Entry> subNames = new LinkedHashMap<>();
        for (Command sc : c.subcommands) {
            Entry sub = compile(sc, path, module);
            subs.add(sub);
            claim(subNames, sub.name, sub, path + " ");
            for (String alias : sub.aliases) {
                claim(subNames, alias, sub, path + " ");
            }
        }
        List<Control> controls = new ArrayList<>(3);
        if (c.cooldown != null) {
            controls.add(new Cooldown(c.cooldown.toMillis(), c.cooldownScope, capacity));
        }
        if (c.rateLimit > 0) {
            controls.add(new RateLimit(c.rateLimit, c.rateWindow.toMillis(), c.rateScope, capacity));
        }
        if (c.quota > 0) {
            controls.add(new Quota(c.quota, c.quotaPeriod, c.quotaScope, capacity, clock.getZone(), path, quotaStore));
        }
        if (shared != null) {
            for (Control control : controls) {
                control.share(shared, path);
            }
        }
        String usage = c.usage != null ? c.usage : shownPrefix + path;
        String keyword = c.keyword == null ? null : fold ? NameTable.fold(c.keyword) : c.keyword;
        return new Entry(path, c, usage, controls.toArray(new Control[0]), keyword, subs,
                subs.isEmpty() ? null : new NameTable<>(subNames, fold), slowCalls.site(module, "command", path),
                costs.site(module, "command", path), observations);
    }

    /** Registers the meters of {@code e} and its sub-commands; returns them for removal. */
    @SuppressWarnings("EnumOrdinal") // counters indexed by outcome, as Entry.count writes them
    private List<Meter> bind(Entry e) {
        List<Meter> bound = new ArrayList<>();
        if (registry == null) {
            return bound;
        }
        for (Outcome o : Outcome.values()) {
            if (o.matched()) {
                LongAdder counter = e.outcomes[o.ordinal()];
                bound.add(FunctionCounter.builder("pulsebus.commands.calls", counter, LongAdder::sum)
                        .description("Command calls by outcome")
                        .tag("command", e.path).tag("outcome", o.label()).register(registry));
            }
        }
        for (Control c : e.controls) {
            LruTable<?> t = c.table();
            bound.add(FunctionCounter.builder("pulsebus.commands.table.evictions", t, LruTable::evictions)
                    .description("Keys evicted from a full command control table (least recently used first)")
                    .tag("command", e.path).tag("control", c.label).register(registry));
            bound.add(Gauge.builder("pulsebus.commands.table.size", t, LruTable::size)
                    .description("Keys in a command control table")
                    .tag("command", e.path).tag("control", c.label).register(registry));
        }
        for (Entry sub : e.subcommands) {
            bound.addAll(bind(sub));
        }
        return bound;
    }
}
