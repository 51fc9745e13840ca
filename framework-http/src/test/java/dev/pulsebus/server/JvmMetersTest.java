package dev.pulsebus.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

class JvmMetersTest {

    @Test
    void awaitReturnsOnceTheJvmAndProcessMetersAreBound() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (JvmMeters meters = new JvmMeters(registry)) {
            assertThat(registry.find("jvm.memory.used").gauges()).isEmpty();
            meters.start();
            meters.start(); // once
            meters.await();
            assertThat(registry.find("jvm.memory.used").gauges()).isNotEmpty();
            assertThat(registry.find("jvm.gc.max.data.size").gauge()).isNotNull();
            assertThat(registry.find("process.uptime").timeGauge()).isNotNull();
            assertThat(registry.find("process.files.open").gauge()).isNotNull();
            assertThat(registry.find("jvm.threads.live").gauge()).isNotNull();
            assertThat(registry.find("jvm.classes.loaded").gauge()).isNotNull();
            assertThat(registry.find("system.cpu.count").gauge()).isNotNull();
        }
    }

    @Test
    void aScrapeBeforeTheStartWaitsForTheBinding() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (JvmMeters meters = new JvmMeters(registry)) {
            var scrape = java.util.concurrent.CompletableFuture.runAsync(meters::await);
            Thread.sleep(200);
            assertThat(scrape).isNotDone(); // the server listens, the meters are not bound yet: it waits
            meters.start();
            scrape.get(10, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(registry.find("jvm.memory.used").gauges()).isNotEmpty();
        }
    }

    @Test
    void closingWithoutAStartReleasesWaitersAndNeverBinds() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        JvmMeters meters = new JvmMeters(registry);
        meters.close();
        meters.await(); // returns at once
        meters.start(); // too late: nothing binds
        Thread.sleep(300); // time a binding would have taken
        assertThat(registry.find("jvm.memory.used").gauges()).isEmpty();
    }
}
