package dev.pulsebus.server;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ConfiguratorRank;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.spi.ContextAwareBase;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * Sets up the shipped logging ({@code config/logback.xml}, also the jar's {@code logback.xml}) without
 * Logback's XML machinery when the configuration in use is that file, byte for byte: Joran (an XML
 * parser, its actions and model handlers) costs about 150 ms of a server's start here, for four
 * settings. Any other configuration (an edited file, another {@code logback.configurationFile}, a
 * {@code logback-test.xml} or an application's own {@code logback.xml} first on the class path) is left
 * to Logback as usual. {@code ShippedLoggingTest} checks that both ways give the same set-up.
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

    @Override
    public ExecutionStatus configure(LoggerContext context) {
        ClassLoader loader = ShippedLogging.class.getClassLoader();
        byte[] shipped = read(loader.getResource("logback.xml"));
        if (shipped == null || !Arrays.equals(shipped, inUse(loader))) {
            return ExecutionStatus.NEUTRAL; // Logback reads the configuration itself
        }
        apply(context);
        return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
    }

    /** The bytes of the configuration Logback would read, or null when it would read none we can see. */
    private static byte @Nullable [] inUse(ClassLoader loader) {
        String file = System.getProperty("logback.configurationFile");
        if (file != null) {
            try {
                return Files.readAllBytes(Path.of(file));
            } catch (IOException | RuntimeException e) {
                return null; // a URL or a missing file: Logback says what it makes of it
            }
        }
        ClassLoader context = Thread.currentThread().getContextClassLoader();
        ClassLoader search = context != null ? context : loader;
        if (search.getResource("logback-test.xml") != null) {
            return null;
        }
        return read(search.getResource("logback.xml"));
    }

    private static byte @Nullable [] read(@Nullable URL url) {
        if (url == null) {
            return null;
        }
        try (InputStream in = url.openStream()) {
            return in.readAllBytes();
        } catch (IOException e) {
            return null;
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
