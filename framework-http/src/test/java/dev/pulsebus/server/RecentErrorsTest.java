package dev.pulsebus.server;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.LoggingEvent;
import org.junit.jupiter.api.Test;

/** The ring of recent warnings and errors the console shows, fed by its Logback appender. */
class RecentErrorsTest {

    private final LoggerContext context = new LoggerContext();
    private final RecentErrors errors = new RecentErrors();
    private final LogbackErrorTap tap = new LogbackErrorTap(errors);

    private void log(Level level, String thread, String message) {
        Logger logger = context.getLogger("dev.pulsebus.bus.Subscriber");
        LoggingEvent e = new LoggingEvent(Logger.class.getName(), logger, level, message, null, null);
        e.setThreadName(thread);
        tap.doAppend(e);
    }

    @Test
    void keepsTheLast200WarningsAndErrorsOldestFirstAndSkipsInfo() {
        tap.setContext(context);
        tap.start();
        for (int i = 0; i < 250; i++) {
            log(i % 2 == 0 ? Level.WARN : Level.ERROR, "main", "line " + i);
        }
        log(Level.INFO, "main", "not kept");
        assertThat(errors.entries()).hasSize(RecentErrors.CAPACITY);
        assertThat(errors.entries().get(0).message()).isEqualTo("line 50");
        assertThat(errors.entries().get(199).message()).isEqualTo("line 249");
        assertThat(errors.total()).isEqualTo(250);
    }

    @Test
    void namesTheModuleAndHandlerTheLineNames() {
        tap.setContext(context);
        tap.start();
        log(Level.ERROR, "main", "Handler 'weather/onMessage' failed on GroupMessage");
        log(Level.WARN, "pulsebus-module-clock", "A scheduled task failed");
        log(Level.WARN, "main", "Module hot: the new version from hot-v2.jar failed to load");
        assertThat(errors.entries()).extracting(RecentErrors.Entry::module).containsExactly("weather", "clock", "hot");
        assertThat(errors.entries().get(0).handler()).isEqualTo("weather/onMessage");
        assertThat(errors.entries().get(0).level()).isEqualTo("ERROR");
    }
}
