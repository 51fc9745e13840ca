package dev.pulsebus.server;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test class when Netty reported leaked buffers by its end (after a collection, which makes Netty
 * report them), naming the class. Every test class of this module has it, through JUnit's extension
 * autodetection ({@code junit-platform.properties}, {@code META-INF/services}), so a new server test
 * cannot go without; each leak counts once, for the first class to see it.
 */
public final class NettyLeakCheck implements AfterAllCallback {

    @Override
    public void afterAll(ExtensionContext context) throws InterruptedException {
        if (!CountingLeakDetector.installed()) {
            return; // not under Maven: Netty's own detector, which only logs
        }
        int leaks = CountingLeakDetector.takeLeaksAfterCollection();
        if (leaks > 0) {
            throw new AssertionError(context.getRequiredTestClass().getName() + " leaked " + leaks
                    + " Netty buffer(s): the LEAK: lines in the log say where");
        }
    }
}
