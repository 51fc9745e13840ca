package dev.pulsebus.transcript;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pulsebus.event.ChatRef;
import dev.pulsebus.event.OneBotJson;
import dev.pulsebus.internal.Json;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The records a {@link TranscriptWriter} could not commit before it had to stop (the store down at
 * shutdown), kept on disk until the next start writes them to the store. One file per spill,
 * {@code transcripts-<seq of the first record>.jsonl}, one JSON object per line; it is written to a
 * temporary name, forced to disk, then renamed, so a file under the final name is always whole.
 *
 * <p>Replaying is idempotent: a record whose seq the store already holds (its batch did commit after all,
 * or an earlier replay stopped before it deleted the file) is skipped, as {@code seq} is the store's key.
 */
final class SpillJournal {

    private static final Logger LOG = LoggerFactory.getLogger(SpillJournal.class);
    private static final String PREFIX = "transcripts-";
    private static final String SUFFIX = ".jsonl";

    private final Path dir;

    SpillJournal(Path dir) {
        this.dir = dir;
    }

    Path dir() {
        return dir;
    }

    /** Writes {@code records} (in seq order) to a new file, durably; returns it. */
    Path write(List<TranscriptRecord> records) throws IOException {
        Files.createDirectories(dir);
        StringBuilder text = new StringBuilder(records.size() * 160);
        for (TranscriptRecord r : records) {
            text.append(line(r)).append('\n');
        }
        Path file = dir.resolve(PREFIX + records.get(0).seq() + SUFFIX);
        Path tmp = dir.resolve(file.getFileName() + ".tmp");
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer bytes = ByteBuffer.wrap(text.toString().getBytes(StandardCharsets.UTF_8));
            while (bytes.hasRemaining()) {
                ch.write(bytes);
            }
            ch.force(true);
        }
        try {
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
        }
        forceDirectory();
        return file;
    }

    /**
     * Appends every spilled record with a seq above {@code storedUpTo} to {@code store}, oldest file first,
     * in batches of {@code batchSize}, and deletes each file once its records are committed. Returns the
     * records written. Lines that cannot be read are not stored: they are moved to a file of their own,
     * {@code <file>.corrupt-<millis>}, and reported.
     *
     * @throws Exception when the store fails: the files stay for the next start
     */
    long replay(TranscriptStore store, long storedUpTo, int batchSize) throws Exception {
        List<Path> files = files();
        long written = 0;
        for (Path file : files) {
            List<String> bad = new ArrayList<>();
            List<TranscriptRecord> records = readKeeping(file, bad);
            if (!bad.isEmpty()) {
                Path aside = file.resolveSibling(file.getFileName() + ".corrupt-" + System.currentTimeMillis());
                Files.write(aside, bad, StandardCharsets.UTF_8);
                LOG.error("Spilled transcript file {}: {} lines cannot be read and are not stored; they are in {}",
                        file, bad.size(), aside.getFileName());
            }
            List<TranscriptRecord> batch = new ArrayList<>(Math.min(batchSize, records.size()));
            for (TranscriptRecord r : records) {
                if (r.seq() <= storedUpTo) {
                    continue; // already in the store
                }
                batch.add(r);
                if (batch.size() == batchSize) {
                    store.append(batch);
                    written += batch.size();
                    batch.clear();
                }
            }
            if (!batch.isEmpty()) {
                store.append(batch);
                written += batch.size();
            }
            if (!records.isEmpty()) {
                storedUpTo = Math.max(storedUpTo, records.get(records.size() - 1).seq());
            }
            Files.delete(file);
            forceDirectory();
        }
        if (written > 0) {
            LOG.info("Wrote {} spilled transcript records from {} to the store", written, dir);
        }
        return written;
    }

    /** The spill files, oldest (lowest first seq) first. */
    List<Path> files() throws IOException {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        List<Path> out = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, PREFIX + "*" + SUFFIX)) {
            ds.forEach(out::add);
        }
        out.sort((a, b) -> Long.compare(firstSeq(a), firstSeq(b)));
        return out;
    }

    private static long firstSeq(Path file) {
        String name = file.getFileName().toString();
        try {
            return Long.parseLong(name.substring(PREFIX.length(), name.length() - SUFFIX.length()));
        } catch (NumberFormatException e) {
            return Long.MAX_VALUE;
        }
    }

    /** The records of {@code file}; the lines that are not records go to {@code bad}, as they were. */
    private static List<TranscriptRecord> readKeeping(Path file, List<String> bad) throws IOException {
        List<TranscriptRecord> out = new ArrayList<>();
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            if (line.isBlank()) {
                continue;
            }
            try {
                out.add(record(Json.MAPPER.readTree(line)));
            } catch (IOException | RuntimeException e) {
                bad.add(line);
            }
        }
        return out;
    }

    static List<TranscriptRecord> read(Path file) throws IOException {
        List<TranscriptRecord> out = new ArrayList<>();
        int n = 0;
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            n++;
            if (line.isBlank()) {
                continue;
            }
            try {
                out.add(record(Json.MAPPER.readTree(line)));
            } catch (IOException | RuntimeException e) {
                throw new IOException("line " + n + ": " + e.getMessage(), e);
            }
        }
        return out;
    }

    static String line(TranscriptRecord r) {
        return tree(r).toString();
    }

    /** The record as {@link #line} writes it, as a JSON tree. */
    @SuppressWarnings("JavaInstantGetSecondsGetNano") // milliseconds, then the nanoseconds below them
    static ObjectNode tree(TranscriptRecord r) {
        ObjectNode o = Json.MAPPER.createObjectNode();
        o.put("seq", r.seq());
        o.put("platform", r.chat().platform());
        o.put("detail_type", r.chat().detailType());
        o.put("chat_id", r.chat().id());
        o.put("user_id", r.userId());
        o.put("time_ms", r.time().toEpochMilli());
        o.put("time_nanos", r.time().getNano() % 1_000_000);
        o.put("message_id", r.messageId());
        o.set("message", OneBotJson.tree(r.message()));
        o.put("outbound", r.outbound());
        return o;
    }

    static TranscriptRecord record(JsonNode o) {
        Instant time = Instant.ofEpochMilli(required(o, "time_ms").asLong())
                .plusNanos(o.path("time_nanos").asLong(0));
        ChatRef chat = new ChatRef(required(o, "platform").asText(), required(o, "detail_type").asText(),
                required(o, "chat_id").asText());
        return new TranscriptRecord(required(o, "seq").asLong(), chat, required(o, "user_id").asText(), time,
                o.path("message_id").asText(""), OneBotJson.read(required(o, "message")),
                o.path("outbound").asBoolean(false));
    }

    private static JsonNode required(JsonNode o, String field) {
        JsonNode v = o.get(field);
        if (v == null || v.isNull()) {
            throw new IllegalArgumentException("no " + field);
        }
        return v;
    }

    /** Makes the directory's new or removed entry durable too (a no-op where a directory cannot be opened). */
    private void forceDirectory() {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException | UnsupportedOperationException e) {
            // not on this file system: the file's own force is what we have
        }
    }
}
