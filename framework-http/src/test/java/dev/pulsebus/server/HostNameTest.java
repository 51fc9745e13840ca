package dev.pulsebus.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.UnknownHostException;
import org.junit.jupiter.api.Test;

class HostNameTest {

    @Test
    void theHostNameIsTheOneTheJdkGivesWithoutItsLookup() throws Exception {
        String ours = PulseBusServer.hostName();
        assertThat(ours).isNotBlank();
        String jdks;
        try {
            jdks = InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return; // the JDK cannot resolve this machine's name (some sandboxes): ours still has one
        }
        assertThat(ours).isEqualTo(jdks);
    }
}
