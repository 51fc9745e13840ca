package dev.pulsebus.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import org.junit.jupiter.api.Test;

class HostNameTest {

    @Test
    void theHostNameIsTheOneTheJdkGivesWithoutItsLookup() throws Exception {
        assertThat(PulseBusServer.hostName()).isNotBlank().isEqualTo(InetAddress.getLocalHost().getHostName());
    }
}
