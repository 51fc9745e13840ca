package dev.pulsebus.platform;

import dev.pulsebus.config.ConfigException;
import dev.pulsebus.config.Section;
import java.util.Map;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.TreeMap;

/**
 * One {@code [adapters.<name>]} section, read by its provider: the provider and the settings it read, to
 * create the platform from.
 *
 * @param <S> the provider's settings
 */
public record PlatformSection<S extends PlatformSettings>(PlatformProvider<S> provider, S settings) {

    /** Starts the platform ({@link PlatformProvider#create}). */
    public Platform create(PlatformContext context) throws Exception {
        return provider.create(settings, context);
    }

    /**
     * {@code section} read by {@code provider}.
     *
     * @throws ConfigException naming the setting that is wrong
     */
    public static <S extends PlatformSettings> PlatformSection<S> read(PlatformProvider<S> provider, Section section,
                                                                       PlatformProvider.Deployment deployment) {
        return new PlatformSection<>(provider, provider.read(section, deployment));
    }

    /**
     * The providers {@code loader} finds ({@code META-INF/services/dev.pulsebus.platform.PlatformProvider}), by
     * name, sorted.
     *
     * @throws ConfigException when two name the same section, or one cannot be loaded
     */
    public static Map<String, PlatformProvider<?>> installed(ClassLoader loader) {
        Map<String, PlatformProvider<?>> found = new TreeMap<>();
        try {
            for (PlatformProvider<?> p : ServiceLoader.load(PlatformProvider.class, loader)) {
                PlatformProvider<?> before = found.putIfAbsent(p.name(), p);
                if (before != null && before.getClass() != p.getClass()) {
                    throw new ConfigException("two platforms are named " + p.name() + ": "
                            + before.getClass().getName() + " and " + p.getClass().getName());
                }
            }
        } catch (ServiceConfigurationError e) {
            throw new ConfigException("a platform cannot be loaded: " + e.getMessage(), e);
        }
        return java.util.Collections.unmodifiableMap(found);
    }
}
