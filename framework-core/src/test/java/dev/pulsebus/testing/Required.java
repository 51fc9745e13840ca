package dev.pulsebus.testing;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.Arrays;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * What a test does when a service it needs is absent. Run by hand, it is skipped with the reason printed (a
 * newcomer's {@code mvn verify} passes on a machine without PostgreSQL or Chromium). Run with
 * {@code -Dpulsebus.test.require=postgres,mariadb,redis,rabbitmq,browser,prometheus,telegram-emulator,ircd} (as
 * {@code .ci/run} does), a test whose named service is absent fails instead: CI never goes green by skipping.
 */
public final class Required {

    /** The property that names the services that must be there, comma-separated; {@code all} names every one. */
    public static final String PROPERTY = "pulsebus.test.require";
    /** The services the tests know, as {@link #PROPERTY} names them. */
    public static final Set<String> SERVICES = Set.of("postgres", "mariadb", "redis", "rabbitmq", "browser",
            "prometheus", "telegram-emulator", "ircd");

    private static final Set<String> REQUIRED = parse(System.getProperty(PROPERTY, ""));

    private Required() {
    }

    /**
     * Returns when {@code unavailable} is null (the service is there); otherwise fails the calling test when
     * {@code service} is required, else prints the reason and skips it.
     *
     * @param service     one of {@link #SERVICES}
     * @param unavailable why the service cannot be used here, or null when it can
     */
    public static void service(String service, @Nullable String unavailable) {
        if (unavailable == null) {
            return;
        }
        if (required(service)) {
            throw new AssertionError(service + " is required (-D" + PROPERTY + ") but " + unavailable);
        }
        System.err.println("[pulsebus] skipped: " + unavailable);
        assumeTrue(false, unavailable);
    }

    /** Whether {@code service} was named in {@link #PROPERTY}. */
    public static boolean required(String service) {
        if (!SERVICES.contains(service)) {
            throw new IllegalArgumentException("unknown service " + service + "; known: " + SERVICES);
        }
        return REQUIRED.contains(service) || REQUIRED.contains("all");
    }

    static Set<String> parse(String value) {
        Set<String> names = Arrays.stream(value.split(","))
                .map(s -> s.strip().toLowerCase(Locale.ROOT))
                .filter(s -> !s.isEmpty())
                .collect(Collectors.toUnmodifiableSet());
        for (String name : names) {
            if (!name.equals("all") && !SERVICES.contains(name)) {
                throw new IllegalArgumentException(PROPERTY + " names an unknown service '" + name + "'; known: "
                        + SERVICES.stream().sorted().collect(Collectors.joining(",")));
            }
        }
        return names;
    }
}
