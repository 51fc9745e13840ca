package dev.pulsebus.server;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ConfiguratorRank;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.util.DefaultJoranConfigurator;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.spi.ContextAwareBase;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.util.zip.CRC32;
import org.jspecify.annotations.Nullable;

/**
 * Sets up the shipped logging ({@code config/logback.xml}, also the jar's {@code logback.xml}) without
 * Logback's XML machinery when the configuration Logback would read is that file, byte for byte: Joran
 * (an XML parser, its actions and model handlers) costs about 150 ms of a server's start here, for four
 * settings. The file is recognised by its length and CRC-32, and found the way Logback finds it (Logback's
 * own search: {@code logback.configurationFile}, then {@code logback-test.xml}, then {@code logback.xml}
 * on the class path), so an edited file, another file, or an application's own {@code logback.xml} is
 * left to Logback as usual. {@code ShippedLoggingTest} checks that both ways give the same set-up and
 * that the recognised length and CRC are the shipped file's.
 *
 * <p>Found by Logback through {@code META-INF/services/ch.qos.logback.classic.spi.Configurator}.
 */
@ConfiguratorRank(ConfiguratorRank.CUSTOM_HIGH_PRIORITY)
public final class ShippedLogging extends ContextAwareBase implements Configurator {

    /** The shipped file's settings: keep them as {@code config/logback.xml} says (the test compares). */
    static final String PATTERN = "%d{yyyy-MM-dd HH:mm:ss.SSS} %-5level [%thread] %logger{36} - %msg%n";
    static final String APPENDER = "CONSOLE";
    static final Level PULSEBUS_LEVEL = Level.INFO;
    static final Level ROOT_LEVEL = Level.WARN;
    /** The shipped file's length and CRC-32: change them with the file (the test says the new ones). */
    static final int SHIPPED_LENGTH = 474;
    static final long SHIPPED_CRC = 0x49420a3aL;

    @Override
    public ExecutionStatus configure(LoggerContext context) {
        DefaultJoranConfigurator logbacksOwnSearch = new DefaultJoranConfigurator();
        logbacksOwnSearch.setContext(context);
        if (!isShipped(read(logbacksOwnSearch.findURLOfDefaultConfigurationFile(false)))) {
            return ExecutionStatus.NEUTRAL; // Logback reads the configuration itself
        }
        apply(context);
        return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
    }

    static boolean isShipped(byte @Nullable [] config) {
        if (config == null || config.length != SHIPPED_LENGTH) {
            return false;
        }
        CRC32 crc = new CRC32();
        crc.update(config);
        return crc.getValue() == SHIPPED_CRC;
    }

    private static byte @Nullable [] read(@Nullable URL url) {
        if (url == null) {
            return null;
        }
        try (InputStream in = url.openStream()) {
            return in.readAllBytes();
        } catch (IOException e) {
            return null; // Logback says what it makes of it
        }
    }

    /** What the shipped XML declares: a console appender with its pattern, INFO for PulseBus, WARN for the rest. */
    static void apply(LoggerContext context) {
        PatternLayoutEncoder encoder = new PatternLayoutEncoder();
        encoder.setContext(context);
        encoder.setPattern(PATTERN);
        encoder.start();
        ConsoleAppender<ILoggingEvent> console = new ConsoleAppender<>();
        console.setContext(context);
        console.setName(APPENDER);
        console.setEncoder(encoder);
        console.start();
        context.getLogger("dev.pulsebus").setLevel(PULSEBUS_LEVEL);
        Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
        root.setLevel(ROOT_LEVEL);
        root.addAppender(console);
    }
}
