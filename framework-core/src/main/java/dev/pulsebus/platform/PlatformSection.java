package dev.pulsebus.platform;

import dev.pulsebus.config.ConfigException;
import dev.pulsebus.config.Section;
import java.util.Map;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

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

    /** The providers on the class path, found at the first call: the class path does not change while it runs. */
    private static volatile @Nullable Map<String, PlatformProvider<?>> installed;

    /**
     * The providers on the class path ({@code META-INF/services/dev.pulsebus.platform.PlatformProvider}), by
     * name, sorted; looked up once (reading the settings at start, and again at each edit, asks again).
     *
     * @throws ConfigException when two name the same section, or one cannot be loaded
     */
    public static Map<String, PlatformProvider<?>> installed() {
        Map<String, PlatformProvider<?>> found = installed;
        if (found == null) {
            found = installed(PlatformSection.class.getClassLoader());
            installed = found;
        }
        return found;
    }

    private static Map<String, PlatformProvider<?>> installed(ClassLoader loader) {
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
