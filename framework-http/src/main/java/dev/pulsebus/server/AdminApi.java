package dev.pulsebus.server;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import dev.pulsebus.internal.CallCosts;
import dev.pulsebus.internal.Json;
import dev.pulsebus.internal.SlowTraces;
import dev.pulsebus.module.ModuleException;
import dev.pulsebus.module.ModuleHost;
import dev.pulsebus.module.Modules;
import io.netty.buffer.ByteBufInputStream;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code /api/admin/*}, what the browser console reads and does beyond chatting: the stats it charts, the
 * rooms, the modules (and loading, unloading and reloading jar modules) and what they cost, the recent errors,
 * the last benchmark's results.
 *
 * <p>Who may call it: with {@code server.admin_token} set, a request with {@code Authorization: Bearer
 * <admin_token>} (401 otherwise, {@code server.token} is not enough); else with {@code server.token} set, a
 * request with that one; with neither, a client on the loopback interface only, and not through a proxy
 * (403 otherwise), since unloading a module is not for whoever can reach the port. A call that changes
 * something must say {@code Content-Type: application/json} (415 otherwise): a page on another site can send
 * only form and text bodies without asking first. The console keeps the tokens in {@code sessionStorage} and
 * sends them as that header, never as a cookie; {@link RequestGuard} has already refused another site's
 * writes and another host name (docs/SECURITY.md). Every answer says {@code Cache-Control: no-store}.
 *
 * <p>The stats are answered on the I/O thread (a snapshot's bytes); everything that may wait (a module's
 * {@code onLoad}, the store, a file) on a virtual thread of {@code work}.
 */
final class AdminApi {

    private static final Logger LOG = LoggerFactory.getLogger(AdminApi.class);
    private static final String PREFIX = "/api/admin/";
    /** A jar's file name in the modules folder: no path, no hidden file. */
    private static final Pattern JAR_NAME = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9._-]{0,127}\\.jar");

    private static final HttpHeaders NO_STORE = new DefaultHttpHeaders().set(HttpHeaderNames.CACHE_CONTROL, "no-store");
    /** The 401's challenge: the realm {@code admin} tells the console to ask for server.admin_token. */
    private final HttpHeaders unauthorized;

    /** The rooms of the {@code http} platform, most recently active first (may query the store). */
    interface Rooms {
        List<String> list(int limit) throws Exception;
    }

    private final boolean tokenSet;
    private final String tokenName;
    private final CountedResponses out;
    private final ExecutorService work;
    private final ConsoleStats stats;
    private final ModuleHost modules;
    private final CallCosts costs;
    private final Profiler profiler;
    private final SlowTraces slow;
    private final Path modulesDir;
    private final RecentErrors errors;
    private final Rooms rooms;
    private final Supplier<@Nullable Path> benchResults;

    AdminApi(ServerConfig config, CountedResponses out, ExecutorService work, ConsoleStats stats, ModuleHost modules,
             CallCosts costs, Profiler profiler, SlowTraces slow, RecentErrors errors, Rooms rooms,
             Supplier<@Nullable Path> benchResults) {
        boolean own = !config.listen().adminToken().isEmpty();
        this.tokenSet = own || !config.listen().token().isEmpty();
        this.tokenName = own ? "server.admin_token" : "server.token";
        this.unauthorized = new DefaultHttpHeaders().set(HttpHeaderNames.CACHE_CONTROL, "no-store")
                .set(HttpHeaderNames.WWW_AUTHENTICATE, own ? "Bearer realm=\"admin\"" : "Bearer");
        this.out = out;
        this.work = work;
        this.stats = stats;
        this.modules = modules;
        this.costs = costs;
        this.profiler = profiler;
        this.slow = slow;
        this.modulesDir = config.modules().dir();
        this.errors = errors;
        this.rooms = rooms;
        this.benchResults = benchResults;
    }

    /** Where a benchmark run from the checkout writes its results, and where the docs' results are kept. */
    static final List<String> BENCH_FILES = List.of("framework-bench/target/bench/results.json",
            "docs/bench/results.json");

    /** What the Benchmark view says when there are no results. */
    static final String NO_BENCH = "No benchmark results yet: run `mvn verify -Pbench` in the checkout (it writes"
            + " framework-bench/target/bench/results.json), or start the server with"
            + " -Dpulsebus.console.bench=<results.json>.";

    /**
     * The benchmark results the console shows: {@code -Dpulsebus.console.bench=<results.json>} when set,
     * else the newer of {@link #BENCH_FILES} under the working directory ({@code ./pulsebus} runs in the
     * checkout), else none.
     */
    static @Nullable Path benchResults() {
        String file = System.getProperty("pulsebus.console.bench", "");
        return file.isBlank() ? latestBench(Path.of("")) : Path.of(file);
    }

    /** The most recently written of {@link #BENCH_FILES} under {@code root}; null when there is none. */
    static @Nullable Path latestBench(Path root) {
        Path latest = null;
        long newest = Long.MIN_VALUE;
        for (String name : BENCH_FILES) {
            Path p = root.resolve(name);
            try {
                long written = Files.getLastModifiedTime(p).toMillis();
                if (Files.isRegularFile(p) && written > newest) {
                    latest = p;
                    newest = written;
                }
            } catch (IOException e) {
                // not there: the next one
            }
        }
        return latest;
    }

    static boolean serves(String path) {
        return path.startsWith(PREFIX);
    }

    /**
     * Answers {@code path} (which {@link #serves}); {@code admitted}: the request carries the token, or none is
     * set.
     */
    void handle(ChannelHandlerContext ctx, FullHttpRequest req, String path, boolean admitted, boolean keepAlive) {
        if (profileFile(ctx, req, path, keepAlive)) {
            return; // a profile's file, asked for with its key
        }
        if (tokenSet && !admitted) {
            out.count(Route.ADMIN, HttpResponseStatus.UNAUTHORIZED);
            Responses.error(ctx, HttpResponseStatus.UNAUTHORIZED, "missing or wrong token: send Authorization: Bearer <"
                    + tokenName + ">", keepAlive, unauthorized);
            return;
        }
        if (!tokenSet && !RequestGuard.loopbackClient(ctx.channel().remoteAddress(), req.headers())) {
            error(ctx, HttpResponseStatus.FORBIDDEN, "without server.admin_token or server.token, admin calls are"
                    + " accepted from loopback clients only, not through a proxy; set server.admin_token to manage"
                    + " the bot from elsewhere", keepAlive);
            return;
        }
        if (req.method().equals(HttpMethod.POST) && !json(req)) {
            error(ctx, HttpResponseStatus.UNSUPPORTED_MEDIA_TYPE, "an admin call that changes something must say"
                    + " Content-Type: application/json", keepAlive);
            return;
        }
        String rest = path.substring(PREFIX.length());
        HttpMethod method = req.method();
        switch (rest) {
            case "stats" -> {
                if (allow(ctx, method, "GET", keepAlive)) {
                    json(ctx, HttpResponseStatus.OK, stats.json(), keepAlive);
                }
            }
            case "errors" -> {
                if (allow(ctx, method, "GET", keepAlive)) {
                    json(ctx, HttpResponseStatus.OK, errorsJson(), keepAlive);
                }
            }
            case "rooms" -> {
                if (allow(ctx, method, "GET", keepAlive)) {
                    work.execute(() -> rooms(ctx, keepAlive));
                }
            }
            case "bench" -> {
                if (allow(ctx, method, "GET", keepAlive)) {
                    work.execute(() -> bench(ctx, keepAlive));
                }
            }
            case "modules" -> {
                if (allow(ctx, method, "GET", keepAlive)) {
                    work.execute(() -> json(ctx, HttpResponseStatus.OK, modulesJson(), keepAlive));
                }
            }
            case "modules/cost" -> {
                if (allow(ctx, method, "GET", keepAlive)) { // the first reads the JVM's counters: not on an I/O thread
                    work.execute(() -> json(ctx, HttpResponseStatus.OK, costJson(costs.report()), keepAlive));
                }
            }
            case "slow" -> {
                if (allow(ctx, method, "GET", keepAlive)) {
                    List<String> id = new QueryStringDecoder(req.uri()).parameters().get("trace_id");
                    json(ctx, HttpResponseStatus.OK, slowJson(slow, id == null || id.isEmpty() ? null : id.get(0)),
                            keepAlive);
                }
            }
            case "profile" -> {
                if (req.method().equals(HttpMethod.POST)) {
                    startProfile(ctx, req, keepAlive);
                } else if (allow(ctx, method, "GET", keepAlive)) {
                    json(ctx, HttpResponseStatus.OK, profileJson(profiler.latest()), keepAlive);
                }
            }
            case "modules/load" -> {
                if (allow(ctx, method, "POST", keepAlive)) {
                    String jar = jarOf(ctx, req, keepAlive, true);
                    if (jar != null) {
                        work.execute(() -> change(ctx, keepAlive, () -> modules.load(existing(jar))));
                    }
                }
            }
            default -> moduleAction(ctx, req, rest, keepAlive);
        }
    }

    /**
     * {@code modules/<name>/reload} (body {@code {"jar": "file.jar"}}, default its own jar) and {@code .../unload},
     * run on a virtual thread: the module host is busy while another module loads, which an I/O thread must
     * not wait for.
     */
    private void moduleAction(ChannelHandlerContext ctx, FullHttpRequest req, String rest, boolean keepAlive) {
        String[] parts = rest.split("/", -1);
        if (parts.length != 3 || !parts[0].equals("modules")
                || !(parts[2].equals("reload") || parts[2].equals("unload"))) {
            error(ctx, HttpResponseStatus.NOT_FOUND, "no such path: " + PREFIX + rest, keepAlive);
            return;
        }
        if (!allow(ctx, req.method(), "POST", keepAlive)) {
            return;
        }
        String name = parts[1];
        boolean unload = parts[2].equals("unload");
        String jar = unload ? "" : jarOf(ctx, req, keepAlive, false); // the body is read here, before it is released
        if (jar == null) {
            return;
        }
        work.execute(() -> change(ctx, keepAlive, () -> {
            Path own = ownJar(name);
            if (unload) {
                modules.unload(name);
            } else {
                Path next = jar.isEmpty() ? own : existing(jar);
                modules.reload(name, next);
                setAside(own, next);
            }
        }));
    }

    /**
     * Moves {@code old}, which a reload to {@code next} replaced, from the modules folder to its
     * {@code .replaced/}, so that what runs now is what starts next time; not when it is the same file, lies
     * elsewhere, or still holds a loaded module. A failed move leaves the reload done and logs what the next start
     * will load instead.
     */
    private void setAside(Path old, Path next) {
        Path folder = old.toAbsolutePath().normalize().getParent();
        if (old.equals(next) || folder == null || !folder.equals(modulesDir.toAbsolutePath().normalize())
                || modules.loaded().stream().anyMatch(m -> old.equals(m.jar()))) {
            return;
        }
        try {
            Path moved = Modules.setAside(old);
            LOG.info("Module jar {} was replaced by {}: moved to {}", old.getFileName(), next.getFileName(), moved);
        } catch (IOException e) {
            LOG.warn("Module jar {} was replaced by {} but could not be moved out of {} ({}); the next start loads {}",
                    old.getFileName(), next.getFileName(), modulesDir, e.toString(),
                    Modules.newestJars(modulesDir, false).stream().map(p -> String.valueOf(p.getFileName())).toList());
        }
    }

    /** The jar {@code name} was loaded from; refused when it is not loaded or is on the classpath. */
    private Path ownJar(String name) {
        ModuleHost.LoadedModule loaded = modules.loaded().stream().filter(m -> m.name().equals(name)).findFirst()
                .orElseThrow(() -> new Refused(HttpResponseStatus.NOT_FOUND, "module '" + name + "' is not loaded"));
        Path own = loaded.jar();
        if (own == null) {
            throw new Refused(HttpResponseStatus.CONFLICT, "module '" + name + "' is on the classpath: only modules"
                    + " from jars in " + modulesDir + " unload and reload");
        }
        return own;
    }

    /** {@code jar} in the modules folder; refused (404) when it is not there. */
    private Path existing(String jar) {
        Path file = modulesDir.resolve(jar);
        if (!Files.isRegularFile(file)) {
            throw new Refused(HttpResponseStatus.NOT_FOUND, "no " + jar + " in " + modulesDir);
        }
        return file;
    }

    /** A module change refused before it was tried, with the status that says why. */
    private static final class Refused extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final transient HttpResponseStatus status;

        Refused(HttpResponseStatus status, String message) {
            super(message, null, false, false);
            this.status = status;
        }
    }

    /**
     * The body's {@code jar}, a plain {@code .jar} file name; "" when there is no body and none is
     * {@code required}; null when the request was answered (400).
     */
    private @Nullable String jarOf(ChannelHandlerContext ctx, FullHttpRequest req, boolean keepAlive,
                                   boolean required) {
        String jar = "";
        if (req.content().isReadable()) {
            try {
                JsonNode body = Json.MAPPER.readTree(new ByteBufInputStream(req.content()));
                JsonNode field = body == null ? null : body.get("jar");
                if (field != null && !field.isTextual()) {
                    error(ctx, HttpResponseStatus.BAD_REQUEST, "field 'jar' must be a string", keepAlive);
                    return null;
                }
                jar = field == null ? "" : field.asText();
            } catch (IOException e) {
                error(ctx, HttpResponseStatus.BAD_REQUEST, "body is not valid JSON: " + String.valueOf(e.getMessage())
                        .lines().findFirst().orElse(""), keepAlive);
                return null;
            }
        }
        if (jar.isEmpty() && !required) {
            return jar;
        }
        if (!JAR_NAME.matcher(jar).matches()) {
            error(ctx, HttpResponseStatus.BAD_REQUEST, "field 'jar' must name a .jar file in " + modulesDir
                    + " (a file name, no path), was '" + jar + "'", keepAlive);
            return null;
        }
        return jar;
    }

    /** Runs a load, unload or reload; answers the modules after it, or 409 with why it failed. */
    private void change(ChannelHandlerContext ctx, boolean keepAlive, Runnable change) {
        try {
            change.run();
            json(ctx, HttpResponseStatus.OK, modulesJson(), keepAlive);
        } catch (Refused e) {
            error(ctx, e.status, String.valueOf(e.getMessage()), keepAlive);
        } catch (ModuleException e) {
            LOG.warn("Console: {}", e.getMessage());
            error(ctx, HttpResponseStatus.CONFLICT, String.valueOf(e.getMessage()), keepAlive);
        } catch (RuntimeException e) {
            LOG.warn("Console: a module change failed: {}", e.toString());
            error(ctx, HttpResponseStatus.INTERNAL_SERVER_ERROR, e.toString(), keepAlive);
        }
    }

    /**
     * {@code GET slow}: {@code {"threshold_ms", "traces": [{"trace_id", "module", "command", "chat", "user",
     * "started", "outcome", "total_ms", "own_ms", "spans_dropped", "spans": [{"kind": "queued" | "transcript" |
     * "kv" | "reply" | "ask", "name", "start_ms" (from the call's start; before it: negative), "duration_ms"}]}]}},
     * the newest first; with {@code ?trace_id=<id>} (an exemplar's), that one only.
     */
    static byte[] slowJson(SlowTraces slow, @Nullable String traceId) {
        List<SlowTraces.Trace> traces = traceId == null ? slow.traces()
                : slow.traces().stream().filter(t -> t.traceId().equals(traceId)).toList();
        return Responses.write(g -> {
            g.writeStartObject();
            g.writeNumberField("threshold_ms", slow.thresholdMillis());
            g.writeArrayFieldStart("traces");
            for (SlowTraces.Trace t : traces) {
                g.writeStartObject();
                g.writeStringField("trace_id", t.traceId());
                g.writeStringField("module", t.module());
                g.writeStringField("command", t.command());
                g.writeStringField("chat", t.chat());
                g.writeStringField("user", t.user());
                g.writeStringField("started", t.started().toString());
                g.writeStringField("outcome", t.outcome());
                g.writeNumberField("total_ms", millis(t.totalNanos()));
                g.writeNumberField("own_ms", millis(t.ownNanos()));
                g.writeNumberField("spans_dropped", t.spansDropped());
                g.writeArrayFieldStart("spans");
                for (SlowTraces.Span s : t.spans()) {
                    g.writeStartObject();
                    g.writeStringField("kind", s.kind());
                    g.writeStringField("name", s.name());
                    g.writeNumberField("start_ms", millis(s.startNanos()));
                    g.writeNumberField("duration_ms", millis(s.durationNanos()));
                    g.writeEndObject();
                }
                g.writeEndArray();
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
        });
    }

    private static double millis(long nanos) {
        return Math.round(nanos / 1e3) / 1e3;
    }

    /**
     * {@code POST profile} with {@code {"seconds": 1 to 60 (10), "mode": "cpu" | "alloc" | "wall" ("cpu")}}: 202
     * and the profile's state ({@link #profileJson}); 409 while another is made; 400 for anything else.
     */
    private void startProfile(ChannelHandlerContext ctx, FullHttpRequest req, boolean keepAlive) {
        int seconds = 10;
        Profiler.Mode mode = Profiler.Mode.CPU;
        try {
            JsonNode body = req.content().isReadable() ? Json.MAPPER.readTree(new ByteBufInputStream(req.content()))
                    : null;
            if (body != null && !body.isObject()) {
                error(ctx, HttpResponseStatus.BAD_REQUEST, "the body must be a JSON object", keepAlive);
                return;
            }
            JsonNode s = body == null ? null : body.get("seconds");
            if (s != null && (!s.canConvertToExactIntegral() || s.asInt() < 1 || s.asInt() > Profiler.MAX_SECONDS)) {
                error(ctx, HttpResponseStatus.BAD_REQUEST, "field 'seconds' must be a whole number from 1 to "
                        + Profiler.MAX_SECONDS + ", was " + s, keepAlive);
                return;
            }
            seconds = s == null ? seconds : s.asInt();
            JsonNode m = body == null ? null : body.get("mode");
            if (m != null) {
                mode = m.isTextual() ? Profiler.Mode.of(m.asText()) : null;
                if (mode == null) {
                    error(ctx, HttpResponseStatus.BAD_REQUEST, "field 'mode' must be \"cpu\", \"alloc\" or \"wall\", was "
                            + m, keepAlive);
                    return;
                }
            }
        } catch (IOException e) {
            error(ctx, HttpResponseStatus.BAD_REQUEST, "body is not valid JSON: " + String.valueOf(e.getMessage())
                    .lines().findFirst().orElse(""), keepAlive);
            return;
        }
        Profiler.Mode asked = mode;
        int duration = seconds;
        work.execute(() -> { // the first recording starts the JVM's flight recorder: not on an I/O thread
            try {
                json(ctx, HttpResponseStatus.ACCEPTED, profileJson(profiler.start(asked, duration)), keepAlive);
            } catch (Profiler.Busy e) {
                error(ctx, HttpResponseStatus.CONFLICT, String.valueOf(e.getMessage()), keepAlive);
            } catch (IOException | RuntimeException e) {
                LOG.warn("Console: a profile could not start: {}", e.toString());
                error(ctx, HttpResponseStatus.INTERNAL_SERVER_ERROR, "the profile could not start: " + e, keepAlive);
            }
        });
    }

    /**
     * A profile's state: {@code {"state": "none"}} before the first, else {@code {"id", "mode", "seconds",
     * "state": "recording" | "drawing" | "done" | "failed", "elapsed_seconds", "started", "events",
     * "module_stacks", "error", and once done "flame_graph", "stacks", "recording"}}: the paths of its files,
     * each with the profile's key.
     */
    static byte[] profileJson(Profiler.@Nullable Run run) {
        return Responses.write(g -> {
            g.writeStartObject();
            if (run == null) {
                g.writeStringField("state", "none");
                g.writeEndObject();
                return;
            }
            Profiler.State state = run.state();
            g.writeStringField("id", run.id);
            g.writeStringField("mode", run.mode.label());
            g.writeNumberField("seconds", run.seconds);
            g.writeStringField("state", state.name().toLowerCase(java.util.Locale.ROOT));
            g.writeNumberField("elapsed_seconds", Math.round(run.elapsedSeconds() * 10) / 10.0);
            g.writeStringField("started", run.started.toString());
            g.writeNumberField("events", run.samples());
            g.writeNumberField("module_stacks", run.moduleFrames());
            if (run.error() != null) {
                g.writeStringField("error", run.error());
            }
            if (state == Profiler.State.DONE) {
                String base = PREFIX + "profile/" + run.id + "/";
                g.writeStringField("flame_graph", base + "flame.html?key=" + run.key);
                g.writeStringField("stacks", base + "stacks.txt?key=" + run.key);
                g.writeStringField("recording", base + "recording.jfr?key=" + run.key);
            }
            g.writeEndObject();
        });
    }

    /** A flame graph's own policy: its inline script and style, nothing else, in an origin of its own. */
    static final String FLAME_CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
            + "sandbox allow-scripts; base-uri 'none'; form-action 'none'; frame-ancestors 'self'";

    /**
     * {@code GET profile/<id>/flame.html|stacks.txt|recording.jfr?key=<its key>}: a profile's file, to whoever
     * has the key (which only an admitted caller is given), so that the console can frame the flame graph and
     * link the recording. False when {@code path} is not one of them or the key is not its own: the request
     * goes on as any other.
     */
    private boolean profileFile(ChannelHandlerContext ctx, FullHttpRequest req, String path, boolean keepAlive) {
        String[] parts = path.substring(PREFIX.length()).split("/", -1);
        if (parts.length != 3 || !parts[0].equals("profile") || !req.method().equals(HttpMethod.GET)) {
            return false;
        }
        Profiler.Run run = profiler.find(parts[1]);
        List<String> key = new QueryStringDecoder(req.uri()).parameters().get("key");
        if (run == null || key == null || key.size() != 1 || run.state() != Profiler.State.DONE
                || !MessageDigest.isEqual(run.key.getBytes(StandardCharsets.US_ASCII),
                key.get(0).getBytes(StandardCharsets.US_ASCII))) {
            return false;
        }
        Path file;
        HttpHeaders headers = new DefaultHttpHeaders().set(NO_STORE).set("X-Content-Type-Options", "nosniff")
                .set("Referrer-Policy", "no-referrer");
        String type;
        switch (parts[2]) {
            case "flame.html" -> {
                file = run.flameGraph();
                type = "text/html; charset=utf-8";
                headers.set(HttpHeaderNames.CONTENT_SECURITY_POLICY, FLAME_CSP);
            }
            case "stacks.txt" -> {
                file = run.stacks();
                type = "text/plain; charset=utf-8";
            }
            case "recording.jfr" -> {
                file = run.recording();
                type = "application/octet-stream";
                headers.set(HttpHeaderNames.CONTENT_DISPOSITION, "attachment; filename=\"pulsebus-" + run.id + ".jfr\"");
            }
            default -> {
                return false;
            }
        }
        work.execute(() -> {
            try {
                byte[] bytes = Files.readAllBytes(file);
                out.count(Route.ADMIN, HttpResponseStatus.OK);
                Responses.write(ctx, HttpResponseStatus.OK, type, Unpooled.wrappedBuffer(bytes), keepAlive, headers);
            } catch (IOException e) {
                error(ctx, HttpResponseStatus.NOT_FOUND, "the profile's files are gone: " + e.getMessage(), keepAlive);
            }
        });
        return true;
    }

    /**
     * {@code GET modules/cost}: {@code {"sample_every", "window_seconds", "process_cpu_seconds", "modules": [{"module",
     * "calls_per_second", "cpu_per_call_us", "bytes_per_call", "cpu_share", "calls", "cpu_seconds",
     * "allocated_bytes", "measured", "sites": [{"kind", "name", the same figures}]}]}}, the modules by CPU in the
     * window first. Rates and the share of the process's CPU are of the window; per-call figures of the window
     * when a call in it was measured, else of all.
     */
    static byte[] costJson(CallCosts.Report report) {
        double window = report.windowNanos() / 1e9;
        return Responses.write(g -> {
            g.writeStartObject();
            g.writeNumberField("sample_every", report.sampleEvery());
            g.writeNumberField("window_seconds", Math.round(window * 10) / 10.0);
            g.writeNumberField("process_cpu_seconds", report.processCpuNanos() / 1e9);
            g.writeArrayFieldStart("modules");
            for (CallCosts.ModuleReport m : report.modules()) {
                g.writeStartObject();
                g.writeStringField("module", m.module());
                costFields(g, m.total(), m.window(), window, report.processCpuNanos());
                g.writeArrayFieldStart("sites");
                for (CallCosts.SiteReport s : m.sites()) {
                    g.writeStartObject();
                    g.writeStringField("kind", s.kind());
                    g.writeStringField("name", s.name());
                    costFields(g, s.total(), s.window(), window, report.processCpuNanos());
                    g.writeEndObject();
                }
                g.writeEndArray();
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
        });
    }

    private static void costFields(JsonGenerator g, CallCosts.Figures total, CallCosts.Figures window,
                                   double windowSeconds, long processCpuNanos) throws IOException {
        CallCosts.Figures perCall = window.measured() > 0 ? window : total;
        g.writeNumberField("calls_per_second", windowSeconds <= 0 ? 0 : round(window.calls() / windowSeconds));
        g.writeNumberField("cpu_per_call_us", round(perCall.cpuPerCall() / 1e3));
        g.writeNumberField("bytes_per_call", perCall.bytesPerCall());
        g.writeNumberField("cpu_share", processCpuNanos <= 0 ? 0
                : Math.round(Math.min(1.0, (double) window.cpuNanos() / processCpuNanos) * 10_000) / 10_000.0);
        g.writeNumberField("calls", total.calls());
        g.writeNumberField("cpu_seconds", total.cpuNanos() / 1e9);
        g.writeNumberField("allocated_bytes", total.allocatedBytes());
        g.writeNumberField("measured", total.measured());
    }

    private static double round(double v) {
        return Math.round(v * 100) / 100.0;
    }

    /**
     * {@code {"modules": [{"name", "version", "source": "classpath"|"jar", "jar", "dependencies", "commands",
     * "subscriptions", "routes"}], "jars": [file names in the modules folder]}}.
     */
    private byte[] modulesJson() {
        List<ModuleHost.LoadedModule> loaded = modules.loaded();
        List<Path> jars = Modules.jars(modulesDir);
        return Responses.write(g -> {
            g.writeStartObject();
            g.writeArrayFieldStart("modules");
            for (ModuleHost.LoadedModule m : loaded) {
                ModuleHost.Owned owned = modules.owned(m.name());
                g.writeStartObject();
                g.writeStringField("name", m.name());
                g.writeStringField("version", m.version());
                Path jar = m.jar();
                g.writeStringField("source", jar == null ? "classpath" : "jar");
                g.writeStringField("jar", jar == null ? null : String.valueOf(jar.getFileName()));
                strings(g, "dependencies", m.dependencies());
                strings(g, "commands", owned == null ? List.of() : owned.commands());
                strings(g, "subscriptions", owned == null ? List.of() : owned.subscriptions());
                strings(g, "routes", owned == null ? List.of() : owned.routes());
                g.writeEndObject();
            }
            g.writeEndArray();
            strings(g, "jars", jars.stream().map(p -> String.valueOf(p.getFileName())).toList());
            g.writeEndObject();
        });
    }

    /** {@code {"errors": [{"time_ms", "level", "module", "handler", "logger", "message"}], "total"}}, oldest first. */
    private byte[] errorsJson() {
        List<RecentErrors.Entry> entries = errors.entries();
        long total = errors.total();
        return Responses.write(g -> {
            g.writeStartObject();
            g.writeArrayFieldStart("errors");
            for (RecentErrors.Entry e : entries) {
                g.writeStartObject();
                g.writeNumberField("time_ms", e.timeMs());
                g.writeStringField("level", e.level());
                g.writeStringField("module", e.module());
                g.writeStringField("handler", e.handler());
                g.writeStringField("logger", e.logger());
                g.writeStringField("message", e.message());
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeNumberField("total", total);
            g.writeEndObject();
        });
    }

    private void rooms(ChannelHandlerContext ctx, boolean keepAlive) {
        try {
            List<String> list = rooms.list(200);
            json(ctx, HttpResponseStatus.OK, Responses.write(g -> {
                g.writeStartObject();
                strings(g, "rooms", list);
                g.writeEndObject();
            }), keepAlive);
        } catch (Exception e) {
            error(ctx, HttpResponseStatus.SERVICE_UNAVAILABLE, "cannot read the rooms: " + e.getMessage(), keepAlive);
        }
    }

    /**
     * The benchmark's {@code results.json} as it is; when there is none, no rows and how to make them
     * ({@code "missing"}); 404 when the configured file is not there.
     */
    private void bench(ChannelHandlerContext ctx, boolean keepAlive) {
        Path file = benchResults.get();
        if (file == null) {
            json(ctx, HttpResponseStatus.OK, Responses.write(g -> {
                g.writeStartObject();
                g.writeArrayFieldStart("results");
                g.writeEndArray();
                g.writeStringField("missing", NO_BENCH);
                g.writeEndObject();
            }), keepAlive);
            return;
        }
        if (!Files.isRegularFile(file)) {
            error(ctx, HttpResponseStatus.NOT_FOUND, "no benchmark results at " + file, keepAlive);
            return;
        }
        try {
            json(ctx, HttpResponseStatus.OK, Files.readAllBytes(file), keepAlive);
        } catch (IOException e) {
            error(ctx, HttpResponseStatus.SERVICE_UNAVAILABLE, "cannot read " + file + ": " + e.getMessage(),
                    keepAlive);
        }
    }

    private static void strings(JsonGenerator g, String field, List<String> values)
            throws IOException {
        g.writeArrayFieldStart(field);
        for (String v : values) {
            g.writeString(v);
        }
        g.writeEndArray();
    }

    /** True when the request's media type is {@code application/json} (parameters such as charset aside). */
    private static boolean json(FullHttpRequest req) {
        String type = req.headers().get(HttpHeaderNames.CONTENT_TYPE);
        if (type == null) {
            return false;
        }
        int semi = type.indexOf(';');
        return (semi < 0 ? type : type.substring(0, semi)).strip().equalsIgnoreCase("application/json");
    }

    private boolean allow(ChannelHandlerContext ctx, HttpMethod method, String allowed, boolean keepAlive) {
        if (method.name().equals(allowed)) {
            return true;
        }
        out.count(Route.ADMIN, HttpResponseStatus.METHOD_NOT_ALLOWED);
        Responses.error(ctx, HttpResponseStatus.METHOD_NOT_ALLOWED, method.name() + " is not allowed here; allowed: "
                + allowed, keepAlive, new DefaultHttpHeaders().set(NO_STORE).set(HttpHeaderNames.ALLOW, allowed));
        return false;
    }

    private void json(ChannelHandlerContext ctx, HttpResponseStatus status, byte[] body, boolean keepAlive) {
        out.count(Route.ADMIN, status);
        Responses.write(ctx, status, Responses.JSON, Unpooled.wrappedBuffer(body), keepAlive, NO_STORE);
    }

    private void error(ChannelHandlerContext ctx, HttpResponseStatus status, String message, boolean keepAlive) {
        out.count(Route.ADMIN, status);
        Responses.error(ctx, status, message, keepAlive, NO_STORE);
    }
}
