package dev.pulsebus.adapter;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.pulsebus.event.FieldMap;
import java.io.IOException;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Reads JSON values from a streaming parser into the plain values an event keeps: {@code String},
 * {@code Long} (or {@code BigInteger} past a long), {@code Double}, {@code Boolean}, immutable lists and
 * {@link FieldMap}s, JSON nulls left out. Every map and list is built on one stack of keys and values that
 * is reused from read to read and copied out once at its exact size, so a read allocates little beyond what
 * it returns. Short strings that are one of the {@linkplain #FieldReader(String...) known values} come back
 * as those constants instead of being made again, and within one read (from one {@link #reset()} to the
 * next) a string, a number or an object that came before with the same value is returned again rather
 * than made twice: a platform's objects repeat themselves (the chat of a message and of the message it
 * answers, a user's names). Not thread-safe: one per thread, reused.
 */
public final class FieldReader {

    private final String[] known;
    private final int knownMax;
    private Object[] stack = new Object[64];
    private int top;
    /** The strings, numbers and objects made since {@link #reset()}, looked up before making another. */
    private final Object[] made = new Object[MADE];
    private int madeCount;
    private static final int MADE = 48;
    /** Strings longer than this are made without a look-up. */
    private static final int MADE_MAX_LENGTH = 64;

    /** A reader that returns {@code known} strings as these constants (values a platform enumerates). */
    public FieldReader(String... known) {
        this.known = known.clone();
        this.knownMax = Arrays.stream(known).mapToInt(String::length).max().orElse(0);
    }

    /**
     * Starts a read: forgets the values made by the last one (so they are not kept alive here) and what a
     * read that failed part way left on the stack.
     */
    public void reset() {
        Arrays.fill(stack, 0, top, null);
        top = 0;
        Arrays.fill(made, 0, madeCount, null);
        madeCount = 0;
    }

    private <T> T made(T value) {
        if (madeCount < MADE) {
            made[madeCount++] = value;
        }
        return value;
    }

    /** The value at the parser's current token {@code t} (not {@code VALUE_NULL}), the parser left at its end. */
    public Object value(JsonParser p, JsonToken t) throws IOException {
        return switch (t) {
            case VALUE_STRING -> string(p);
            case VALUE_NUMBER_INT -> p.getNumberType() == JsonParser.NumberType.BIG_INTEGER
                    ? p.getBigIntegerValue() : number(p.getLongValue());
            case VALUE_NUMBER_FLOAT -> p.getDoubleValue();
            case VALUE_TRUE -> true;
            case VALUE_FALSE -> false;
            case START_OBJECT -> object(p, null, null);
            case START_ARRAY -> array(p);
            default -> p.getText();
        };
    }

    /**
     * The object whose {@code START_OBJECT} is the parser's current token, read to its end; with
     * {@code addKey} set, that key and {@code addValue} are added after the object's own fields.
     */
    public Map<String, Object> object(JsonParser p, @Nullable String addKey, @Nullable Object addValue)
            throws IOException {
        int base = top;
        Map<String, Object> spilled = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String key = p.currentName();
            JsonToken v = p.nextToken();
            if (v == JsonToken.VALUE_NULL) {
                continue;
            }
            Object value = value(p, v);
            spilled = spilled != null ? put(spilled, key, value) : push(base, key, value);
        }
        if (addKey != null && addValue != null) {
            spilled = spilled != null ? put(spilled, addKey, addValue) : push(base, addKey, addValue);
        }
        if (spilled != null) {
            return Map.copyOf(spilled);
        }
        Map<String, Object> map = madeMap(base);
        if (map == null) {
            map = made(FieldMap.copyOf(stack, base, top));
        }
        Arrays.fill(stack, base, top, null);
        top = base;
        return map;
    }

    /** A map made before in this read with exactly the keys and values on the stack from {@code base}; else null. */
    @SuppressWarnings("unchecked") // only FieldMaps are kept in made
    private @Nullable Map<String, Object> madeMap(int base) {
        int size = (top - base) / 2;
        next:
        for (int m = 0; m < madeCount; m++) {
            if (made[m] instanceof FieldMap earlier && earlier.size() == size) {
                for (int i = base; i < top; i += 2) {
                    if (!stack[i + 1].equals(earlier.get(stack[i]))) {
                        continue next;
                    }
                }
                return (Map<String, Object>) earlier;
            }
        }
        return null;
    }

    private Object number(long value) {
        if (value >= -128 && value <= 127) {
            return value; // Long's own cache
        }
        for (int m = 0; m < madeCount; m++) {
            if (made[m] instanceof Long l && l == value) {
                return l;
            }
        }
        return made(value);
    }

    /** The string at the parser: a known value as that constant, one made before in this read again, else made. */
    private String string(JsonParser p) throws IOException {
        int length = p.getTextLength();
        if (length > MADE_MAX_LENGTH) {
            return p.getText();
        }
        char[] chars = p.getTextCharacters();
        int offset = p.getTextOffset();
        if (length <= knownMax) {
            for (String k : known) {
                if (k.length() == length && same(k, chars, offset)) {
                    return k;
                }
            }
        }
        for (int m = 0; m < madeCount; m++) {
            if (made[m] instanceof String s && s.length() == length && same(s, chars, offset)) {
                return s;
            }
        }
        return made(new String(chars, offset, length));
    }

    private static boolean same(String s, char[] chars, int offset) {
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) != chars[offset + i]) {
                return false;
            }
        }
        return true;
    }

    private List<Object> array(JsonParser p) throws IOException {
        int base = top;
        JsonToken e;
        while ((e = p.nextToken()) != JsonToken.END_ARRAY) {
            if (e != JsonToken.VALUE_NULL) {
                Object v = value(p, e);
                if (top == stack.length) {
                    stack = Arrays.copyOf(stack, stack.length * 2);
                }
                stack[top++] = v;
            }
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
            if (stack[i].equals(key)) {
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
