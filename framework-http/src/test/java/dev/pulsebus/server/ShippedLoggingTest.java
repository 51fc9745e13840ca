package dev.pulsebus.server;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.classic.spi.Configurator.ExecutionStatus;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.encoder.Encoder;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The shipped logging set up without Joran is the set-up Joran makes of the shipped file. */
class ShippedLoggingTest {

    private static final Path SHIPPED = Path.of("..", "config", "logback.xml");

    @TempDir
    Path dir;

    @AfterEach
    void clearProperty() {
        System.clearProperty("logback.configurationFile");
    }

    @Test
    void theShippedFileGetsTheSetUpJoranMakesOfIt() throws Exception {
        LoggerContext byJoran = new LoggerContext();
        JoranConfigurator joran = new JoranConfigurator();
        joran.setContext(byJoran);
        joran.doConfigure(SHIPPED.toFile());

        System.setProperty("logback.configurationFile", SHIPPED.toString());
        LoggerContext byUs = new LoggerContext();
        ShippedLogging configurator = new ShippedLogging();
        configurator.setContext(byUs);
        assertThat(configurator.configure(byUs)).isEqualTo(ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY);

        assertThat(describe(byUs)).isEqualTo(describe(byJoran));
        assertThat(describe(byUs)).containsEntry("ROOT", "WARN " + List.of("CONSOLE ConsoleAppender System.out"))
                .containsEntry("dev.pulsebus", "INFO []");
        assertThat(((PatternLayoutEncoder) console(byJoran).getEncoder()).getPattern()).isEqualTo(ShippedLogging.PATTERN);

        // The hand-written pattern writes what PatternLayout makes of the shipped one, byte for byte.
        Encoder<ILoggingEvent> joranEncoder = console(byJoran).getEncoder();
        Encoder<ILoggingEvent> ourEncoder = console(byUs).getEncoder();
        assertThat(ourEncoder).isInstanceOf(ShippedLogging.LineEncoder.class);
        Exception failure = new IllegalStateException("outer", new java.io.IOException("inner cause"));
        List<LoggingEvent> events = List.of(
                event(byUs, "dev.pulsebus.server.PulseBusServer", Level.INFO, "listening on {} ({})", null, "x", 1),
                event(byUs, "com.zaxxer.hikari.pool.HikariPool.some.very.long.logger.name.indeed", Level.WARN, "w", null),
                event(byUs, "ROOT", Level.ERROR, "failed: {}", failure, "why"),
                event(byUs, "a", Level.DEBUG, "", null),
                event(byUs, "b.C", Level.TRACE, "ünïcode ✓ 100%", null));
        for (LoggingEvent e : events) {
            e.setThreadName(e.getLevel() == Level.WARN ? "pulsebus-kv-writer" : "main");
            assertThat(new String(ourEncoder.encode(e))).isEqualTo(new String(joranEncoder.encode(e)));
        }
        assertThat(new String(ourEncoder.encode(events.get(2)))).contains("Caused by: java.io.IOException: inner cause");
        assertThat(ourEncoder.headerBytes()).isEqualTo(joranEncoder.headerBytes());
        assertThat(ourEncoder.footerBytes()).isEqualTo(joranEncoder.footerBytes());
    }

    private static LoggingEvent event(LoggerContext context, String logger, Level level, String message,
                                      Throwable t, Object... args) {
        LoggingEvent e = new LoggingEvent(ShippedLoggingTest.class.getName(), context.getLogger(logger), level, message, t,
                args.length == 0 ? null : args);
        e.setTimeStamp(1_764_552_000_123L);
        return e;
    }

    private static ConsoleAppender<ILoggingEvent> console(LoggerContext context) {
        return (ConsoleAppender<ILoggingEvent>) context.getLogger(Logger.ROOT_LOGGER_NAME).getAppender(ShippedLogging.APPENDER);
    }

    @Test
    void anyOtherConfigurationIsLeftToLogback() throws Exception {
        Path edited = dir.resolve("logback.xml");
        Files.writeString(edited, Files.readString(SHIPPED).replace("level=\"INFO\"", "level=\"DEBUG\""));
        for (String file : List.of(edited.toString(), dir.resolve("missing.xml").toString())) {
            System.setProperty("logback.configurationFile", file);
            LoggerContext context = new LoggerContext();
            ShippedLogging configurator = new ShippedLogging();
            configurator.setContext(context);
            assertThat(configurator.configure(context)).as(file).isEqualTo(ExecutionStatus.NEUTRAL);
            assertThat(context.getLogger(Logger.ROOT_LOGGER_NAME).iteratorForAppenders().hasNext()).isFalse();
        }
        // No property: the test class path has a logback-test.xml, which Logback prefers.
        System.clearProperty("logback.configurationFile");
        LoggerContext context = new LoggerContext();
        ShippedLogging configurator = new ShippedLogging();
        configurator.setContext(context);
        assertThat(configurator.configure(context)).isEqualTo(ExecutionStatus.NEUTRAL);
    }

    @Test
    void theShippedFileIsRecognisedByItsLengthAndCrcAndNothingElseIs() throws Exception {
        byte[] shipped = Files.readAllBytes(SHIPPED);
        java.util.zip.CRC32 crc = new java.util.zip.CRC32();
        crc.update(shipped);
        assertThat(ShippedLogging.isShipped(shipped))
                .as("config/logback.xml changed: set ShippedLogging.SHIPPED_LENGTH = %d, SHIPPED_CRC = 0x%sL and apply()"
                        + " to what it says", shipped.length, Long.toHexString(crc.getValue())).isTrue();
        byte[] other = shipped.clone();
        other[other.length / 2] ^= 1; // an application's own logback.xml, or one edited in place
        assertThat(ShippedLogging.isShipped(other)).isFalse();
        assertThat(ShippedLogging.isShipped(java.util.Arrays.copyOf(shipped, shipped.length - 1))).isFalse();
        assertThat(ShippedLogging.isShipped(null)).isFalse();
    }

    @Test
    void theJarsOwnLogbackXmlIsTheShippedFileAndLogbackFindsTheConfigurator() throws Exception {
        try (InputStream in = ShippedLogging.class.getClassLoader().getResourceAsStream("logback.xml")) {
            assertThat(in).isNotNull();
            assertThat(in.readAllBytes()).isEqualTo(Files.readAllBytes(SHIPPED));
        }
        try (InputStream in = ShippedLogging.class.getClassLoader()
                .getResourceAsStream("META-INF/services/ch.qos.logback.classic.spi.Configurator")) {
            assertThat(in).isNotNull();
            assertThat(new String(in.readAllBytes()).trim()).isEqualTo(ShippedLogging.class.getName());
        }
    }

    /** Every logger with a level of its own: its level and appenders (name, class, target, pattern). */
    private static Map<String, String> describe(LoggerContext context) {
        Map<String, String> m = new TreeMap<>();
        for (Logger logger : context.getLoggerList()) {
            if (logger.getLevel() == null) {
                continue;
            }
            List<String> appenders = new ArrayList<>();
            for (var it = logger.iteratorForAppenders(); it.hasNext(); ) {
                Appender<ILoggingEvent> a = it.next();
                String line = a.getName() + " " + a.getClass().getSimpleName();
                if (a instanceof ConsoleAppender<ILoggingEvent> console) {
                    line += " " + console.getTarget();
                }
                appenders.add(line);
            }
            m.put(logger.getName(), logger.getLevel() + " " + appenders);
        }
        return m;
    }
}
