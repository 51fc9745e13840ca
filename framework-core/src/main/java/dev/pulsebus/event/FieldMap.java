package dev.pulsebus.event;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * An immutable map of a platform's fields in the order they came, for what an adapter reads from the wire:
 * an event's {@code extra} or {@code fields}, a segment's data, the JSON objects inside them. It keeps its
 * keys and values in one array of exactly their size, and the event records keep it as it is (any other map
 * they copy). Lookups scan the keys, which suits the few fields of a platform object: more than
 * {@value #MAX_SCANNED} keys make an ordinary immutable map instead, so no lookup scans more than that. Null
 * keys and values are refused, as by {@link Map#copyOf}.
 */
public final class FieldMap extends AbstractMap<String, Object> {

    /** The most keys a {@code FieldMap} holds; more make a hashed map. */
    public static final int MAX_SCANNED = 16;

    private static final FieldMap EMPTY = new FieldMap(new Object[0], 0);

    /** Keys at even indexes, each value after its key. */
    private final Object[] entries;
    private final int size;

    private FieldMap(Object[] entries, int size) {
        this.entries = entries;
        this.size = size;
    }

    /**
     * The fields at {@code entries[from..to)}, keys (strings) at even offsets from {@code from}, each value
     * after its key, copied: a key given again keeps its last value. Past {@value #MAX_SCANNED} distinct keys
     * it is a hashed immutable map instead.
     *
     * @throws NullPointerException when a key or value is null
     * @throws ClassCastException when a key is not a string
     */
    public static Map<String, Object> copyOf(Object[] entries, int from, int to) {
        Objects.checkFromToIndex(from, to, entries.length);
        if (((to - from) & 1) != 0) {
            throw new IllegalArgumentException("a key without its value");
        }
        if (from == to) {
            return EMPTY;
        }
        Object[] out = new Object[to - from];
        int n = 0;
        next:
        for (int i = from; i < to; i += 2) {
            String key = (String) Objects.requireNonNull(entries[i], "key");
            Object value = Objects.requireNonNull(entries[i + 1], "value");
            int hash = key.hashCode(); // cached in the string: a cheap first test for each key before it
            for (int k = 0; k < n * 2; k += 2) {
                Object seen = out[k];
                if (seen == key || (seen.hashCode() == hash && seen.equals(key))) {
                    out[k + 1] = value;
                    continue next;
                }
            }
            if (n == MAX_SCANNED) {
                LinkedHashMap<String, Object> all = new LinkedHashMap<>();
                for (int k = from; k < to; k += 2) {
                    all.put((String) entries[k], Objects.requireNonNull(entries[k + 1], "value"));
                }
                return Map.copyOf(all);
            }
            out[n * 2] = key;
            out[n * 2 + 1] = value;
            n++;
        }
        return new FieldMap(n * 2 == out.length ? out : Arrays.copyOf(out, n * 2), n);
    }

    /**
     * Fields built by {@code fields} at their first read, for an adapter whose events' fields are seldom read
     * (it keeps what it needs to build them: the bytes they came in, checked): the event records keep the map
     * as it is. {@code fields} is called at the first read of the map (its size, a key, its entries,
     * {@code equals}, ...), from the reading thread, or more than once when threads read it at once before it is
     * built, so it must give equal maps each time and be safe to call from any thread; the map it gives is
     * kept (copied first unless a {@code FieldMap} or immutable already), and a call that throws leaves the map
     * unbuilt, the exception passed to the reader.
     */
    public static Map<String, Object> deferred(Supplier<? extends Map<String, Object>> fields) {
        return new DeferredFieldMap(fields);
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public boolean isEmpty() {
        return size == 0;
    }

    private int indexOf(@Nullable Object key) {
        if (key != null) {
            for (int i = 0; i < size * 2; i += 2) {
                if (entries[i].equals(key)) {
                    return i;
                }
            }
        }
        return -1;
    }

    @Override
    public @Nullable Object get(@Nullable Object key) {
        int i = indexOf(key);
        return i < 0 ? null : entries[i + 1];
    }

    @Override
    public boolean containsKey(@Nullable Object key) {
        return indexOf(key) >= 0;
    }

    @Override
    public void forEach(BiConsumer<? super String, ? super Object> action) {
        for (int i = 0; i < size * 2; i += 2) {
            action.accept((String) entries[i], entries[i + 1]);
        }
    }

    @Override
    public Set<Entry<String, Object>> entrySet() {
        return new AbstractSet<>() {
            @Override
            public int size() {
                return size;
            }

            @Override
            public Iterator<Entry<String, Object>> iterator() {
                return new Iterator<>() {
                    private int next;

                    @Override
                    public boolean hasNext() {
                        return next < size * 2;
                    }

                    @Override
                    public Entry<String, Object> next() {
                        if (next >= size * 2) {
                            throw new NoSuchElementException();
                        }
                        Entry<String, Object> e = Map.entry((String) entries[next], entries[next + 1]);
                        next += 2;
                        return e;
                    }
                };
            }
        };
    }

}
