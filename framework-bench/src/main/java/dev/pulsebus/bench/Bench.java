package dev.pulsebus.bench;

import dev.pulsebus.bench.adapter.AdapterSuite;
import dev.pulsebus.bench.adapter.OneBotLoadMain;
import dev.pulsebus.bench.bridge.BridgeSuite;
import dev.pulsebus.bench.cluster.ClusterSuite;
import dev.pulsebus.bench.config.ConfigSuite;
import dev.pulsebus.bench.conversation.ConversationSuite;
import dev.pulsebus.bench.event.EventSuite;
import dev.pulsebus.bench.harness.BenchMain;
import dev.pulsebus.bench.harness.Suite;
import dev.pulsebus.bench.http.HttpSuite;
import dev.pulsebus.bench.longpoll.LongPollSuite;
import dev.pulsebus.bench.module.ModuleSuite;
import dev.pulsebus.bench.overall.OverallSuite;
import dev.pulsebus.bench.router.RouterSuite;
import dev.pulsebus.bench.startup.StartupSuite;
import dev.pulsebus.bench.storage.StorageSuite;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The benchmark's entry point: {@code mvn verify -Pbench [-Dbench.args="..."]} runs it with the JDK the
 * build selected. It names the suites, each in the package of the classes it measures; the harness
 * ({@link BenchMain}) runs them and writes the results.
 */
public final class Bench {

    private Bench() {
    }

    /** Every suite this build has, in run order. */
    static Map<String, Suite> suites() {
        Map<String, Suite> all = new LinkedHashMap<>();
        for (Suite suite : List.of(ConfigSuite.create(), EventSuite.create(), RouterSuite.create(),
                ConversationSuite.create(), BridgeSuite.bridge(), BridgeSuite.send(), StorageSuite.create(),
                new ModuleSuite(), new HttpSuite(), new LongPollSuite(), new OverallSuite(), new AdapterSuite(),
                new StartupSuite(), new ClusterSuite())) {
            all.put(suite.name(), suite);
        }
        return all;
    }

    public static void main(String[] args) throws Exception {
        if (List.of(args).contains("--onebot-target")) { // the load client against another bot, nothing else
            System.exit(OneBotLoadMain.run(args));
        }
        BenchMain.nettyAsTheServerRunsIt(); // first: the suites' servers run in this JVM
        System.exit(BenchMain.run(args, suites()));
    }
}
