package dev.pulsebus.event;

import java.util.AbstractMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Platform fields built at their first read ({@link FieldMap#deferred}): until then the map holds only what
 * builds them, after it the immutable map built. No lock: threads that read it at once before it is built may
 * each build it, and the last one built is kept (the builder gives equal maps each time).
 */
final class DeferredFieldMap extends AbstractMap<String, Object> {

    /** The {@link Supplier} until the fields are built, then the immutable map of them. */
    private volatile Object state;

    DeferredFieldMap(Supplier<? extends Map<String, Object>> fields) {
        this.state = Objects.requireNonNull(fields, "fields");
    }

    @SuppressWarnings("unchecked") // state holds one of the two
    private Map<String, Object> fields() {
        Object s = state;
        if (s instanceof Map<?, ?> built) {
            return (Map<String, Object>) built;
        }
        Map<String, Object> built = Checks.fields(Objects.requireNonNull(
                ((Supplier<? extends Map<String, Object>>) s).get(), "the fields built"));
        state = built;
        return built;
    }

    @Override
    public int size() {
        return fields().size();
    }

    @Override
    public boolean isEmpty() {
        return fields().isEmpty();
    }

    @Override
    public @Nullable Object get(@Nullable Object key) {
        return fields().get(key);
    }

    @Override
    public boolean containsKey(@Nullable Object key) {
        return fields().containsKey(key);
    }

    @Override
    public void forEach(BiConsumer<? super String, ? super Object> action) {
        fields().forEach(action);
    }

    @Override
    public Set<Entry<String, Object>> entrySet() {
        return fields().entrySet();
    }

    @Override
    public boolean equals(@Nullable Object o) {
        return o == this || fields().equals(o);
    }

    @Override
    public int hashCode() {
        return fields().hashCode();
    }

    @Override
    public String toString() {
        return fields().toString();
    }
}
