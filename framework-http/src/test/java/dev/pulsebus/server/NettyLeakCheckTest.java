package dev.pulsebus.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import io.netty.buffer.ByteBufAllocator;
import org.junit.jupiter.api.Test;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

/** The leak check every test class here gets: a class that leaks a buffer fails, and the failure names it. */
class NettyLeakCheckTest {

    /** Leaks a buffer on purpose. Run only by the test below (surefire leaves nested classes alone). */
    static class Leaking {
        @Test
        void dropsABufferWithoutReleasingIt() {
            ByteBufAllocator.DEFAULT.buffer(16).writeByte(1);
        }
    }

    @Test
    void aTestClassThatLeaksABufferFailsNamingTheClass() {
        assumeTrue(CountingLeakDetector.installed(), "Netty's leak detector is ours only under Maven");
        SummaryGeneratingListener listener = new SummaryGeneratingListener();
        LauncherFactory.create().execute(LauncherDiscoveryRequestBuilder.request()
                .selectors(selectClass(Leaking.class)).build(), listener);
        TestExecutionSummary summary = listener.getSummary();
        assertThat(summary.getTestsSucceededCount()).as("the test itself passes").isEqualTo(1);
        assertThat(summary.getFailures()).as("the class fails").singleElement()
                .satisfies(f -> assertThat(f.getException()).hasMessageStartingWith(Leaking.class.getName() + " leaked 1 "));
    }
}
