package dev.pulsebus.adapter;

import static dev.pulsebus.adapter.JsonBytes.ARRAY;
import static dev.pulsebus.adapter.JsonBytes.DECIMAL;
import static dev.pulsebus.adapter.JsonBytes.FALSE;
import static dev.pulsebus.adapter.JsonBytes.INTEGER;
import static dev.pulsebus.adapter.JsonBytes.OBJECT;
import static dev.pulsebus.adapter.JsonBytes.STRING;
import static dev.pulsebus.adapter.JsonBytes.TRUE;

import dev.pulsebus.event.FieldMap;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Reads JSON values from a {@link JsonBytes} into the plain values an event keeps: {@code String},
 * {@code Long} (or {@code BigInteger} past a long), {@code Double}, {@code Boolean}, immutable lists and
 * {@link FieldMap}s, JSON nulls left out (each told to a {@link NullListener} with its path, made only
 * then). Every map and list is built on one stack of keys and values that is reused from read to read and
 * copied out once at its exact size, so a read allocates little beyond what it returns. Strings that are
 * one of the {@linkplain #FieldReader(String...) known values} come back as those constants instead of
 * being made again, and within one read (from one {@link #reset()} to the next) a string, a number or an
 * object that came before with the same value is returned again rather than made twice (strings compared
 * on their bytes): a platform's objects repeat themselves (the chat of a message and of the message it
 * answers, a user's names). The one reader of such values for the adapters that read bytes (OneBot v11,
 * Telegram). Not thread-safe: one per thread, reused.
 */
public final class FieldReader {

    /** Told of each JSON null a read leaves out (the records hold no null), to count or warn of it. */
    @FunctionalInterface
    public interface NullListener {
        /**
         * A null left out: {@code key} is its key, null for an array's element; {@code path} says where, from
         * the value read ({@link #value(JsonBytes, String)}'s name for it, else the first key): keys joined by
         * dots, elements as {@code [index]}. The path is made only when there is a null.
         */
        void nullAt(@Nullable String key, String path);
    }

    private static final NullListener IGNORED = (key, path) -> { };

    private final JsonBytes.Known known;
    private final NullListener nulls;
    /** Where the read is, for the paths of nulls: at each depth the key, or null and the element's index. */
    private String root = "";
    private String[] pathKeys = new String[16];
    private int[] pathIndexes = new int[16];
    private int depth;
    private Object[] stack = new Object[64];
    private int top;
    /**
     * The strings, numbers and maps made since {@link #reset()}, each kind apart, looked up before making
     * another; past {@value #MADE} of a kind, the rest are made without being kept here.
     */
    private final String[] strings = new String[MADE];
    private int stringCount;
    private final long[] numbers = new long[MADE];
    private final Long[] boxes = new Long[MADE];
    private int numberCount;
    private final FieldMap[] maps = new FieldMap[MADE];
    private int mapCount;
    private static final int MADE = 32;

    /** A reader that returns {@code known} strings (ASCII) as these constants (values a platform enumerates). */
    public FieldReader(String... known) {
        this(IGNORED, known);
    }

    /** As {@link #FieldReader(String...)}, telling {@code nulls} of each null it leaves out. */
    public FieldReader(NullListener nulls, String... known) {
        this.nulls = nulls;
        this.known = JsonBytes.known(known);
    }

    /**
     * Starts a read: forgets the values made by the last one (so they are not kept alive here) and what a
     * read that failed part way left on the stack.
     */
    public void reset() {
        Arrays.fill(stack, 0, top, null);
        top = 0;
        Arrays.fill(strings, 0, stringCount, null);
        stringCount = 0;
        Arrays.fill(boxes, 0, numberCount, null);
        numberCount = 0;
        Arrays.fill(maps, 0, mapCount, null);
        mapCount = 0;
        Arrays.fill(pathKeys, 0, depth, null);
        depth = 0;
        root = "";
    }

    /**
     * As {@link #value(JsonBytes)}, {@code at} naming the value in the paths of the nulls left out inside it
     * ({@link NullListener}).
     */
    public Object value(JsonBytes j, String at) throws JsonBytes.MalformedException {
        root = at;
        try {
            return value(j);
        } finally {
            root = "";
        }
    }

    /** The value that is next in {@code j} (not a null), read to its end. */
    public Object value(JsonBytes j) throws JsonBytes.MalformedException {
        int kind = j.kind();
        return switch (kind) {
            case STRING -> string(j);
            case INTEGER -> j.isLong() ? number(j.longValue(0)) : j.number();
            case DECIMAL -> j.number();
            case TRUE, FALSE -> {
                j.skip();
                yield kind == TRUE;
            }
            case OBJECT -> object(j, null, null);
            case ARRAY -> array(j);
            default -> j.text();
        };
    }

    /**
     * The object that is next in {@code j}, read to its end, {@code at} naming it as in
     * {@link #value(JsonBytes, String)}.
     */
    public Map<String, Object> object(JsonBytes j, String at) throws JsonBytes.MalformedException {
        root = at;
        try {
            return object(j, null, null);
        } finally {
            root = "";
        }
    }

    /**
     * The object that is next in {@code j}, read to its end; with {@code addKey} set, that key and
     * {@code addValue} are added after the object's own fields.
     */
    public Map<String, Object> object(JsonBytes j, @Nullable String addKey, @Nullable Object addValue)
            throws JsonBytes.MalformedException {
        int base = top;
        Map<String, Object> spilled = null;
        if (j.beginObject()) {
            int at = enter();
            do {
                String key = j.name();
                pathKeys[at] = key;
                if (j.nullValue()) {
                    if (nulls != IGNORED) {
                        nulls.nullAt(key, path(at));
                    }
                    continue;
                }
                Object value = value(j);
                spilled = spilled != null ? put(spilled, key, value) : push(base, key, value);
            } while (j.nextField());
            depth = at;
        }
        if (addKey != null && addValue != null) {
            spilled = spilled != null ? put(spilled, addKey, addValue) : push(base, addKey, addValue);
        }
        if (spilled != null) {
            return Map.copyOf(spilled);
        }
        Map<String, Object> map = madeMap(base);
        if (map == null) {
            map = FieldMap.copyOf(stack, base, top);
            if (mapCount < MADE && map instanceof FieldMap made) {
                maps[mapCount++] = made;
            }
        }
        Arrays.fill(stack, base, top, null);
        top = base;
        return map;
    }

    /** A map made before in this read with exactly the keys and values on the stack from {@code base}; else null. */
    private @Nullable Map<String, Object> madeMap(int base) {
        int size = (top - base) / 2;
        next:
        for (int m = 0; m < mapCount; m++) {
            FieldMap earlier = maps[m];
            if (earlier.size() == size) {
                for (int i = base; i < top; i += 2) {
                    if (!stack[i + 1].equals(earlier.get(stack[i]))) {
                        continue next;
                    }
                }
                return earlier;
            }
        }
        return null;
    }

    private Object number(long value) {
        if (value >= -128 && value <= 127) {
            return value; // Long's own cache
        }
        for (int m = 0; m < numberCount; m++) {
            if (numbers[m] == value) {
                return boxes[m];
            }
        }
        Long box = value;
        if (numberCount < MADE) {
            numbers[numberCount] = value;
            boxes[numberCount++] = box;
        }
        return box;
    }

    /** The string that is next: a known value as that constant, one made before in this read again, else made. */
    private String string(JsonBytes j) throws JsonBytes.MalformedException {
        String s = j.string(known, strings, stringCount);
        if (stringCount < MADE && s.length() > 2 && !isMade(s)) {
            strings[stringCount++] = s; // the shortest are cheap to make again
        }
        return s;
    }

    @SuppressWarnings("ReferenceEquality") // the very string, found again by JsonBytes#string
    private boolean isMade(String s) {
        for (int m = 0; m < stringCount; m++) {
            if (strings[m] == s) {
                return true;
            }
        }
        return false;
    }

    private List<Object> array(JsonBytes j) throws JsonBytes.MalformedException {
        int base = top;
        if (j.beginArray()) {
            int at = enter();
            pathKeys[at] = null;
            int index = 0;
            do {
                pathIndexes[at] = index++;
                if (j.nullValue()) {
                    if (nulls != IGNORED) {
                        nulls.nullAt(null, path(at));
                    }
                } else {
                    Object v = value(j);
                    if (top == stack.length) {
                        stack = Arrays.copyOf(stack, stack.length * 2);
                    }
                    stack[top++] = v;
                }
            } while (j.nextElement());
            depth = at;
        }
        int n = top - base;
        List<Object> list = switch (n) { // the fixed-arity List.of keep no array of their own
            case 0 -> List.of();
            case 1 -> List.of(stack[base]);
            case 2 -> List.of(stack[base], stack[base + 1]);
            default -> Collections.unmodifiableList(Arrays.asList(Arrays.copyOfRange(stack, base, top)));
        };
        Arrays.fill(stack, base, top, null);
        top = base;
        return list;
    }

    /** Enters a container one level deeper: its depth, whose key or index the caller keeps up to date. */
    private int enter() {
        int at = depth++;
        if (at == pathKeys.length) {
            pathKeys = Arrays.copyOf(pathKeys, at * 2);
            pathIndexes = Arrays.copyOf(pathIndexes, at * 2);
        }
        return at;
    }

    /** The path to the value at depth {@code at}: the root's name, then each key or index down to it. */
    private String path(int at) {
        StringBuilder out = new StringBuilder(root);
        for (int d = 0; d <= at; d++) {
            String key = pathKeys[d];
            if (key == null) {
                out.append('[').append(pathIndexes[d]).append(']');
            } else {
                if (!out.isEmpty()) {
                    out.append('.');
                }
                out.append(key);
            }
        }
        return out.toString();
    }

    private static Map<String, Object> put(Map<String, Object> spilled, String key, Object value) {
        spilled.put(key, value);
        return spilled;
    }

    /**
     * Puts {@code key} in the map on the stack from {@code base} (its last value kept); past
     * {@link FieldMap#MAX_SCANNED} keys, the map moved into the LinkedHashMap returned (else null).
     */
    private @Nullable Map<String, Object> push(int base, String key, Object value) {
        for (int i = base; i < top; i += 2) {
            if (stack[i] == key || stack[i].equals(key)) { // keys come again as the same strings (JsonBytes#name)
                stack[i + 1] = value;
                return null;
            }
        }
        if (top - base == FieldMap.MAX_SCANNED * 2) {
            LinkedHashMap<String, Object> all = new LinkedHashMap<>();
            for (int i = base; i < top; i += 2) {
                all.put((String) stack[i], stack[i + 1]);
            }
            all.put(key, value);
            Arrays.fill(stack, base, top, null);
            top = base;
            return all;
        }
        if (top + 2 > stack.length) {
            stack = Arrays.copyOf(stack, stack.length * 2);
        }
        stack[top++] = key;
        stack[top++] = value;
        return null;
    }
}
