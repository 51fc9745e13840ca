package dev.pulsebus.internal;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.type.TypeFactory;
import com.fasterxml.jackson.databind.util.LRUMap;
import com.fasterxml.jackson.databind.util.LookupCache;

/**
 * The Jackson mapper of PulseBus (thread-safe once configured), and mappers like it for modules' classes.
 * Internal: not an API.
 */
public final class Json {

    public static final ObjectMapper MAPPER = mapper(TypeFactory.defaultInstance());

    private Json() {
    }

    /**
     * A mapper set up as {@link #MAPPER} with caches of its own, its type factory's included: for the
     * classes of a module, which a shared mapper's caches would keep loaded (and their class loader, and
     * so every class of an unloaded version) for as long as the shared mapper lives.
     */
    public static ObjectMapper isolated() {
        // The type factory too: every mapper shares Jackson's default one, whose cache keeps classes.
        return mapper(TypeFactory.defaultInstance().withCache((LookupCache<Object, JavaType>) new LRUMap<Object, JavaType>(16, 200)));
    }

    private static ObjectMapper mapper(TypeFactory types) {
        return new ObjectMapper(JsonStreaming.factory()) // pooled buffers
                .setTypeFactory(types)
                .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
    }
}
