package dev.pulsebus.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** /metrics parses as the Prometheus text format (and OpenMetrics on request), with our meters in it. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MetricsTest {

    @TempDir
    Path dir;

    @Test
    void metricsAreValidPrometheusTextWithPulseBusJvmAndPoolMeters() throws Exception {
        try (TestServer t = new TestServer(dir, "")) {
            t.say("m", "ann", "/echo hi");
            t.say("m", "ann", "plain text, published on the bus");
            Thread.sleep(300); // handled on a lane after the 201
            t.get("/nope");
            HttpResponse<String> r = t.get("/metrics");
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.headers().firstValue("content-type").orElseThrow()).startsWith("text/plain; version=0.0.4");
            Map<String, String> types = PrometheusText.parse(r.body(), false);
            assertThat(types).containsKeys("pulsebus_http_requests_total", "pulsebus_longpoll_waiters",
                    "pulsebus_kv_writes_total", "pulsebus_transcripts_written_total", "pulsebus_events_published_total",
                    "jvm_memory_used_bytes", "process_uptime_seconds", "hikaricp_connections_active");
            assertThat(r.body()).contains("pulsebus_http_requests_total{route=\"unknown\",status=\"404\"} 1.0");
            for (String timer : List.of("pulsebus_handler_duration_seconds", "pulsebus_kv_commit_seconds",
                    "pulsebus_transcripts_batch_seconds", "pulsebus_longpoll_delivery_seconds",
                    "pulsebus_command_duration_seconds", "http_server_requests_seconds")) {
                assertThat(r.body()).as(timer + " has the fixed buckets").contains(timer + "_bucket{")
                        .containsPattern(timer + "_bucket\\{[^}]*le=\"5\\.0E-5\"")
                        .containsPattern(timer + "_bucket\\{[^}]*le=\"10\\.0\"");
            }
            assertThat(r.body()).contains("so _count counts timed runs, not events");
            assertThat(r.body()).contains("pulsebus_command_duration_seconds_count{outcome=\"ok\"} 1")
                    .contains("pulsebus_handler_slow_total{module=\"example\"} 0")
                    .contains("pulsebus_component_up{component=\"storage\"} 1.0")
                    .contains("pulsebus_component_up{component=\"transcripts\"} 1.0")
                    .contains("pulsebus_component_up{component=\"http\"} 1.0");
            assertThat(r.body()).contains("pulsebus_build_info{commit=\"" + BuildInfo.CURRENT.commit() + "\",jdk=\""
                    + Runtime.version() + "\",version=\"" + PulseBusServer.VERSION + "\"} 1");

            HttpResponse<String> om = t.client.send(HttpRequest.newBuilder(t.uri("/metrics"))
                    .header("Accept", "application/openmetrics-text; version=1.0.0").build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(om.headers().firstValue("content-type").orElseThrow()).startsWith("application/openmetrics-text");
            assertThat(om.body()).endsWith("# EOF\n");
            PrometheusText.parse(om.body(), true);
        }
    }

    @Test
    void httpRequestsAreTimedByRouteTemplateNeverByRawPath() throws Exception {
        try (TestServer t = new TestServer(dir, "")) {
            assertThat(t.say("room-x7", "ann", "hello").statusCode()).isEqualTo(201);
            assertThat(t.get("/api/rooms/room-x7/messages").statusCode()).isEqualTo(200);
            assertThat(t.get("/api/rooms/room-x7/messages?limit=0").statusCode()).isEqualTo(400);
            assertThat(t.get("/health/ready").statusCode()).isEqualTo(200);
            assertThat(t.get("/secret-path-42").statusCode()).isEqualTo(404);
            assertThat(t.get("/api/rooms/room-x7/nothing-here").statusCode()).isEqualTo(404);
            t.get("/metrics");
            String body = t.get("/metrics").body();
            String messages = "route=\"/api/rooms/{room}/messages\"";
            assertThat(body).contains("http_server_requests_seconds_count{method=\"POST\"," + messages + ",status=\"201\"} 1")
                    .contains("http_server_requests_seconds_count{method=\"GET\"," + messages + ",status=\"200\"} 1")
                    .contains("http_server_requests_seconds_count{method=\"GET\"," + messages + ",status=\"400\"} 1")
                    .contains("http_server_requests_seconds_count{method=\"GET\",route=\"/health/ready\",status=\"200\"} 1")
                    .contains("http_server_requests_seconds_count{method=\"GET\",route=\"UNKNOWN\",status=\"404\"} 2")
                    .contains("http_server_requests_seconds_count{method=\"GET\",route=\"/metrics\",status=\"200\"} 1")
                    .containsPattern("http_server_requests_seconds_bucket\\{[^}]*le=\"5\\.0E-5\"")
                    .doesNotContain("room-x7").doesNotContain("secret-path-42").doesNotContain("nothing-here");
        }
    }

    /**
     * The metric list of docs/OPERATIONS.md ("Metrics") is what /metrics exposes: every PulseBus family a server
     * with some traffic exposes is listed, and every one listed is exposed (but those made on first use).
     */
    @Test
    void theOperationsGuidesMetricListIsWhatMetricsExposes() throws Exception {
        String guide = Files.readString(Path.of("..", "docs", "OPERATIONS.md"));
        int from = guide.indexOf("\n## Metrics\n");
        String section = guide.substring(from, guide.indexOf("\n## ", from + 1));
        Set<String> listed = new TreeSet<>();
        Matcher m = Pattern.compile("`(pulsebus_[a-z0-9_]+|http_server_[a-z_]+)").matcher(section);
        while (m.find()) {
            listed.add(m.group(1));
        }
        try (TestServer t = new TestServer(dir, "")) {
            t.say("m", "ann", "/echo hi");
            t.say("m", "ann", "/remember k v");
            Set<String> exposed = new TreeSet<>();
            Map<String, String> types = PrometheusText.parse(t.get("/metrics").body(), false);
            for (String family : types.keySet()) {
                boolean timersMax = family.endsWith("_max")
                        && "histogram".equals(types.get(family.substring(0, family.length() - 4)));
                if ((family.startsWith("pulsebus_") || family.startsWith("http_server_")) && !timersMax) {
                    exposed.add(family);
                }
            }
            assertThat(listed).as("listed in docs/OPERATIONS.md").containsAll(exposed);
            Set<String> firstUse = Set.of("pulsebus_module_calls_total", // made at a module's first call
                    "pulsebus_onebot_action_duration_seconds"); // by a OneBot adapter
            assertThat(exposed).as("exposed by /metrics").containsAll(listed.stream()
                    .filter(n -> !firstUse.contains(n)).toList());
        }
    }

    @Test
    void metricsTurnedOffAnswer404() throws Exception {
        try (TestServer t = new TestServer(dir, "\n[metrics]\nenabled = false\n")) {
            assertThat(t.get("/metrics").statusCode()).isEqualTo(404);
            assertThat(t.get("/health").statusCode()).isEqualTo(200);
        }
    }

    /** A strict reader of the text exposition format: every line must be a comment, a type, or a sample. */
    static final class PrometheusText {
        private static final String NAME = "[a-zA-Z_:][a-zA-Z0-9_:]*";
        private static final Pattern TYPE = Pattern.compile("# TYPE (" + NAME + ") (counter|gauge|histogram|summary|untyped|unknown|info|stateset|gaugehistogram)");
        private static final Pattern HELP = Pattern.compile("# HELP (" + NAME + ") .*");
        private static final Pattern SAMPLE = Pattern.compile("(" + NAME + ")(\\{(" + NAME.replace(":", "") + "=\"(\\\\.|[^\"\\\\])*\"(,|(?=\\})))*\\})? "
                + "([-+]?([0-9]+(\\.[0-9]*)?([eE][-+]?[0-9]+)?|NaN|Inf|\\+Inf|-Inf))( -?[0-9]+(\\.[0-9]+)?)?( # .*)?");

        /** Family name to type; fails the test on any line that is not valid. */
        static Map<String, String> parse(String text, boolean openMetrics) {
            Map<String, String> types = new HashMap<>();
            Set<String> seenSamples = new HashSet<>();
            int n = 0;
            for (String line : text.split("\n")) {
                n++;
                if (line.isEmpty() || line.equals("# EOF") || HELP.matcher(line).matches()) {
                    continue;
                }
                Matcher type = TYPE.matcher(line);
                if (type.matches()) {
                    if (types.put(type.group(1), type.group(2)) != null) {
                        fail("line " + n + ": second TYPE for " + type.group(1));
                    }
                    continue;
                }
                if (line.startsWith("#")) {
                    if (!line.startsWith("# UNIT ") || !openMetrics) {
                        fail("line " + n + ": unexpected comment: " + line);
                    }
                    continue;
                }
                Matcher m = SAMPLE.matcher(line);
                if (!m.matches()) {
                    fail("line " + n + " is not a valid sample: " + line);
                }
                if (!seenSamples.add(line.substring(0, line.lastIndexOf(' ')))) {
                    fail("line " + n + ": duplicate series: " + line);
                }
            }
            if (openMetrics && !text.endsWith("# EOF\n")) {
                fail("OpenMetrics text must end with # EOF");
            }
            // Counters are exposed with _total: report the sample names too.
            Map<String, String> families = new HashMap<>(types);
            types.forEach((name, t) -> {
                if (t.equals("counter") && !name.endsWith("_total")) {
                    families.put(name + "_total", t);
                }
            });
            return families;
        }
    }
}
