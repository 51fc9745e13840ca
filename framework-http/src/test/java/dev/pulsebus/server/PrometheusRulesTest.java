package dev.pulsebus.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pulsebus.internal.Json;
import dev.pulsebus.testing.Await;
import dev.pulsebus.testing.Required;
import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shipped dashboard and rules against the real thing: {@code promtool} checks the rules and runs their
 * unit tests, and a real Prometheus (Debian's {@code prometheus} package, which {@code .ci/run} installs)
 * scrapes a running server after some traffic; then every PromQL expression of the dashboard and of the
 * recording rules must return data, and every metric an alert reads must exist, so that a renamed metric
 * breaks the build instead of a panel. Skipped, saying so, where the binaries are not installed.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class PrometheusRulesTest {

    private static final Path CONFIG = Path.of("..", "config").toAbsolutePath().normalize();
    private static final Path RULES = CONFIG.resolve("prometheus/pulsebus-rules.yml");
    private static final Path RULE_TESTS = CONFIG.resolve("prometheus/pulsebus-rules.test.yml");
    private static final Path DASHBOARD = CONFIG.resolve("grafana/pulsebus.json");
    /** What a metric name in an alert looks like (outside quotes): ours, the JVM's, HTTP's, Prometheus's {@code up}. */
    private static final Pattern METRIC = Pattern.compile(
            "\\b(pulsebus[a-z0-9_:]*|jvm_[a-z0-9_]+|hikaricp_[a-z0-9_]+|http_server_[a-z0-9_]+|up)\\b");

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @TempDir
    Path dir;

    @Test
    void promtoolChecksTheRulesAndTheirUnitTestsPass() throws Exception {
        Required.service("prometheus", onPath("promtool") != null ? null
                : "promtool is not installed (Debian package prometheus)");
        assertThat(run("promtool", "check", "rules", RULES.toString())).contains("SUCCESS");
        assertThat(run("promtool", "test", "rules", RULE_TESTS.toString())).contains("SUCCESS");
    }

    @Test
    void everyDashboardAndRuleQueryFindsDataInARealPrometheus() throws Exception {
        Path prometheus = onPath("prometheus");
        Required.service("prometheus", prometheus != null ? null
                : "prometheus is not installed (Debian package prometheus)");
        try (TestServer t = new TestServer(dir, "")) {
            traffic(t, "1");
            int port = freePort();
            Path config = dir.resolve("prometheus.yml");
            Files.writeString(config, """
                    global:
                      scrape_interval: 1s
                      evaluation_interval: 1s
                    rule_files: ["%s"]
                    scrape_configs:
                      - job_name: pulsebus
                        static_configs:
                          - targets: ["%s"]
                    """.formatted(RULES, t.server.url().getAuthority()));
            Path log = dir.resolve("prometheus.log");
            Process p = new ProcessBuilder(prometheus.toString(), "--config.file=" + config,
                    "--storage.tsdb.path=" + dir.resolve("tsdb"), "--web.listen-address=127.0.0.1:" + port,
                    "--enable-feature=exemplar-storage")
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
            try {
                String api = "http://127.0.0.1:" + port;
                boolean scraped = Await.until(Duration.ofSeconds(30), Duration.ofMillis(250), () -> {
                    try {
                        JsonNode r = query(api, "count_over_time(up{job=\"pulsebus\"}[1m]) >= 4");
                        return r != null && !r.isEmpty();
                    } catch (java.net.ConnectException starting) {
                        return false;
                    }
                });
                assertThat(scraped).as("four scrapes of the server; Prometheus said: " + tail(log)).isTrue();
                traffic(t, "2"); // between scrapes, so that the rates see it
                Thread.sleep(2100); // two more scrapes and rule evaluations: the rates and records carry it

                List<String> failures = new ArrayList<>();
                Set<String> queries = dashboardQueries();
                assertThat(queries).as("the dashboard's queries").hasSizeGreaterThan(20);
                JsonNode groups = get(api + "/api/v1/rules").at("/data/groups");
                Set<String> alertMetrics = new LinkedHashSet<>();
                int records = 0;
                int alerts = 0;
                for (JsonNode g : groups) {
                    for (JsonNode rule : g.path("rules")) {
                        assertThat(rule.path("health").asText()).as(rule.path("name") + " evaluates").isEqualTo("ok");
                        if (rule.path("type").asText().equals("recording")) {
                            queries.add(rule.path("query").asText());
                            queries.add(rule.path("name").asText()); // and what it records
                            records++;
                        } else {
                            Matcher m = METRIC.matcher(rule.path("query").asText().replaceAll("\"[^\"]*\"", "\"\""));
                            while (m.find()) {
                                alertMetrics.add(m.group(1));
                            }
                            alerts++;
                        }
                    }
                }
                assertThat(records).as("recording rules loaded").isEqualTo(6);
                assertThat(alerts).as("alerts loaded").isEqualTo(8);
                for (String q : queries) {
                    JsonNode r = query(api, q);
                    if (r == null || r.isEmpty()) {
                        failures.add(q + (r == null ? " (refused)" : " (no data)"));
                    }
                }
                for (String metric : alertMetrics) {
                    JsonNode r = query(api, "count(" + metric + ")");
                    if (r == null || r.isEmpty()) {
                        failures.add("alert metric " + metric + " (no such series)");
                    }
                }
                assertThat(alertMetrics).contains("up", "pulsebus_component_up", "jvm_gc_pause_seconds_sum",
                        "pulsebus:longpoll_delivery_seconds:p99");
                assertThat(failures).as("queries without data (" + queries.size() + " asked)").isEmpty();
                // the traffic is commands: their latency panel shows numbers, not the NaN of no runs (an
                // outcome none had is NaN, in its own series)
                for (String q : panelQueries("Command latency p50 / p99")) {
                    JsonNode r = query(api, q);
                    assertThat(r).as(q).isNotNull().isNotEmpty();
                    assertThat(r.findValues("value")).as(q).anyMatch(v -> !v.path(1).asText().equals("NaN"));
                }
                // and it links its points to the commands' traces: exemplars scraped, the panel asks for them
                long now = System.currentTimeMillis() / 1000;
                JsonNode exemplars = get(api + "/api/v1/query_exemplars?start=" + (now - 600) + "&end=" + (now + 60)
                        + "&query=" + URLEncoder.encode("pulsebus_command_duration_seconds_bucket", StandardCharsets.UTF_8));
                assertThat(exemplars.at("/data").findValues("trace_id")).as("exemplars: %s", exemplars).isNotEmpty();
                assertThat(panelTargets("Command latency p50 / p99")).allMatch(target -> target.path("exemplar").asBoolean());
            } finally {
                p.destroy();
                if (!p.waitFor(10, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
            }
        }
    }

    /**
     * Says, commands (one writing the KV store, one timed in each round), a history read, a delivered poll,
     * a 404, and a GC.
     */
    private static void traffic(TestServer t, String round) throws Exception {
        for (int i = 0; i < 3; i++) {
            assertThat(t.say("ops", "ann", "/echo hi " + i).statusCode()).isEqualTo(201);
            assertThat(t.say("ops", "ann", "/remember k" + i + " v").statusCode()).isEqualTo(201);
            assertThat(t.say("ops", "ann", "/roll").statusCode()).isEqualTo(201);
        }
        for (int i = 0; i < 16; i++) { // one /echo of each round's is timed (one call in 16): the rates see it
            assertThat(t.say("ops", "ann", "/echo again " + i).statusCode()).isEqualTo(201);
        }
        CompletableFuture<HttpResponse<String>> poll = t.client.sendAsync(HttpRequest.newBuilder(
                t.uri("/api/rooms/waiting-" + round + "/poll?timeout_ms=10000&after=0")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(Await.until(Duration.ofSeconds(10), () -> t.get("/metrics").body()
                .contains("pulsebus_longpoll_waiters 1.0"))).as("the poll is parked").isTrue();
        assertThat(t.say("waiting-" + round, "bob", "wake up").statusCode()).isEqualTo(201);
        assertThat(poll.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        assertThat(t.get("/api/rooms/ops/messages?limit=5").statusCode()).isEqualTo(200);
        assertThat(t.get("/no/such/path").statusCode()).isEqualTo(404);
        System.gc(); // the GC pause timer is made at the first collection
    }

    /**
     * Every expression of the dashboard: its panels' targets (rows included) and its variables'
     * {@code label_values(metric, label)} (as {@code metric}), with Grafana's variables as Grafana would
     * fill them for "All".
     */
    private static Set<String> dashboardQueries() throws IOException {
        JsonNode dashboard = Json.MAPPER.readTree(DASHBOARD.toFile());
        assertThat(dashboard.path("schemaVersion").asInt()).as("Grafana 10's schema").isGreaterThanOrEqualTo(38);
        Set<String> queries = new LinkedHashSet<>();
        List<String> variables = new ArrayList<>();
        for (JsonNode v : dashboard.at("/templating/list")) {
            variables.add(v.path("name").asText());
            String q = v.at("/query/query").asText(v.path("query").asText());
            Matcher m = Pattern.compile("label_values\\((\\w+),\\s*\\w+\\)").matcher(q);
            if (m.matches()) {
                queries.add(m.group(1));
            }
        }
        assertThat(variables).contains("datasource", "instance");
        for (JsonNode panel : dashboard.path("panels")) {
            assertThat(panel.at("/datasource/uid").asText("${datasource}")).isEqualTo("${datasource}");
            for (JsonNode p : panel.path("panels").isEmpty() ? List.of(panel) : (Iterable<JsonNode>) panel.path("panels")) {
                for (JsonNode target : p.path("targets")) {
                    queries.add(fill(target.path("expr").asText()));
                }
            }
        }
        return queries;
    }

    /** The targets of the dashboard's panel titled {@code title}, as they are. */
    private static List<JsonNode> panelTargets(String title) throws IOException {
        List<JsonNode> targets = new ArrayList<>();
        for (JsonNode panel : Json.MAPPER.readTree(DASHBOARD.toFile()).path("panels")) {
            if (panel.path("title").asText().equals(title)) {
                panel.path("targets").forEach(targets::add);
            }
        }
        return targets;
    }

    /** The expressions of the dashboard's panel titled {@code title}, filled in as {@link #dashboardQueries}. */
    private static List<String> panelQueries(String title) throws IOException {
        List<String> queries = new ArrayList<>();
        for (JsonNode panel : Json.MAPPER.readTree(DASHBOARD.toFile()).path("panels")) {
            if (panel.path("title").asText().equals(title)) {
                for (JsonNode target : panel.path("targets")) {
                    queries.add(fill(target.path("expr").asText()));
                }
            }
        }
        assertThat(queries).as("the queries of the panel " + title).isNotEmpty();
        return queries;
    }

    /** An expression with Grafana's variables as Grafana would fill them for "All". */
    private static String fill(String expr) {
        return expr.replace("$__rate_interval", "1m").replace("${instance}", ".*").replace("$instance", ".*");
    }

    /** The result of an instant query, or null when Prometheus refused it (a syntax error, an unknown function). */
    private @Nullable JsonNode query(String api, String promql) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(api + "/api/v1/query?query="
                + URLEncoder.encode(promql, StandardCharsets.UTF_8))).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            return null; // 400 or 422 for a query it refuses; 503 while it starts
        }
        JsonNode body = Json.MAPPER.readTree(r.body());
        return body.path("status").asText().equals("success") ? body.at("/data/result") : null;
    }

    private JsonNode get(String url) throws IOException, InterruptedException {
        return Json.MAPPER.readTree(http.send(HttpRequest.newBuilder(URI.create(url)).build(),
                HttpResponse.BodyHandlers.ofString()).body());
    }

    private static @Nullable Path onPath(String program) {
        for (String d : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            Path p = Path.of(d, program);
            if (Files.isExecutable(p)) {
                return p;
            }
        }
        return null;
    }

    /** Runs a command to its end; its output, or a failed assertion with it when it exits non-zero. */
    private static String run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(String.join(" ", command) + ":\n" + out).isZero();
        return out;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static String tail(Path log) throws IOException {
        List<String> lines = Files.exists(log) ? Files.readAllLines(log) : List.of();
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
    }
}
