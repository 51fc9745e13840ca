package dev.pulsebus.adapter;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * The meters of one adapter's counters in one registry, removed together when the adapter stops, and the
 * counters themselves: a {@link LongAdder} per label value of a bounded set, made once, so that counting
 * is a map read and an increment (no lock, no allocation) whether or not a registry is bound.
 */
public final class AdapterMeters {

    private final List<Meter> meters = new ArrayList<>();
    private @Nullable MeterRegistry registry;

    /** An adder per constant of {@code type}. */
    public static <E extends Enum<E>> Map<E, LongAdder> adders(Class<E> type) {
        Map<E, LongAdder> map = new EnumMap<>(type);
        for (E e : type.getEnumConstants()) {
            map.put(e, new LongAdder());
        }
        return map;
    }

    /** An adder per label in {@code labels}. */
    public static Map<String, LongAdder> adders(List<String> labels) {
        Map<String, LongAdder> map = new HashMap<>();
        for (String label : labels) {
            map.put(label, new LongAdder());
        }
        return map;
    }

    /** The adder of {@code key}, which the map was made with. */
    public static LongAdder get(Map<?, LongAdder> adders, Object key) {
        return Objects.requireNonNull(adders.get(key), () -> "no counter for " + key);
    }

    /** Meters registered from now on go to {@code registry}. */
    public void bind(MeterRegistry registry) {
        this.registry = registry;
    }

    /** The registry bound; throws when none is. */
    public MeterRegistry registry() {
        return Objects.requireNonNull(registry, "no registry bound");
    }

    /** Registers a counter that reads {@code adder}, with {@code tags} as key, value, key, value ... */
    public void counter(String name, String description, LongAdder adder, String... tags) {
        add(FunctionCounter.builder(name, adder, LongAdder::sum).description(description).tags(tags)
                .register(registry()));
    }

    /** Keeps {@code meter}, registered in the bound registry, to be removed with the others. */
    public <M extends Meter> M add(M meter) {
        meters.add(meter);
        return meter;
    }

    /** Removes every meter registered here from the registry. */
    public void unbind() {
        MeterRegistry r = registry;
        if (r != null) {
            meters.forEach(r::remove);
            meters.clear();
        }
    }
}
