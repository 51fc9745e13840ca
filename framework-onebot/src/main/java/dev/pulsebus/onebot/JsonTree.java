package dev.pulsebus.onebot;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.BigIntegerNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.DoubleNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.pulsebus.adapter.JsonBytes;
import io.netty.buffer.ByteBuf;
import java.math.BigInteger;
import org.jspecify.annotations.Nullable;

/**
 * A frame read into Jackson's tree by {@link JsonBytes}, which each thread keeps: the nodes are all it makes
 * (Jackson's own {@code readTree} makes a parser, its contexts and a symbol table per document, most of what
 * reading an action's response cost). The tree is the one {@code readTree} gives: ints as {@link IntNode},
 * past an int {@link LongNode}, past a long {@link BigIntegerNode}, decimals as {@link DoubleNode}, a key
 * given twice its last value; the bytes are checked strictly as UTF-8.
 */
final class JsonTree {

    private static final ThreadLocal<JsonBytes> READERS = ThreadLocal.withInitial(JsonBytes::new);
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private JsonTree() {
    }

    /** {@code frame}'s readable bytes (not consumed) as a JSON object, or null when they are none. */
    static @Nullable ObjectNode object(ByteBuf frame) {
        JsonBytes j = READERS.get().reset(frame);
        try {
            if (j.kind() != JsonBytes.OBJECT) {
                return null;
            }
            ObjectNode node = (ObjectNode) value(j);
            j.finish();
            return node;
        } catch (JsonBytes.MalformedException e) {
            return null;
        }
    }

    private static JsonNode value(JsonBytes j) throws JsonBytes.MalformedException {
        return switch (j.kind()) {
            case JsonBytes.OBJECT -> {
                ObjectNode o = NODES.objectNode();
                if (j.beginObject()) {
                    do {
                        String key = j.name();
                        o.set(key, value(j));
                    } while (j.nextField());
                }
                yield o;
            }
            case JsonBytes.ARRAY -> {
                ArrayNode a = NODES.arrayNode();
                if (j.beginArray()) {
                    do {
                        a.add(value(j));
                    } while (j.nextElement());
                }
                yield a;
            }
            case JsonBytes.STRING -> TextNode.valueOf(j.string());
            case JsonBytes.INTEGER -> {
                Object n = j.number();
                if (n instanceof Long v) {
                    yield v == v.intValue() ? IntNode.valueOf(v.intValue()) : LongNode.valueOf(v);
                }
                yield BigIntegerNode.valueOf((BigInteger) n);
            }
            case JsonBytes.DECIMAL -> DoubleNode.valueOf((Double) j.number());
            case JsonBytes.TRUE, JsonBytes.FALSE -> {
                boolean v = j.kind() == JsonBytes.TRUE;
                j.skip();
                yield BooleanNode.valueOf(v);
            }
            default -> {
                j.nullValue();
                yield NullNode.getInstance();
            }
        };
    }
}
