package dev.pulsebus.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

class JvmMetersTest {

    @Test
    void awaitReturnsOnceTheJvmAndProcessMetersAreBound() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (JvmMeters meters = new JvmMeters(registry)) {
            meters.await(); // not started: nothing to wait for
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
    void closingWithoutAStartDoesNotWait() {
        new JvmMeters(new SimpleMeterRegistry()).close();
    }
}
