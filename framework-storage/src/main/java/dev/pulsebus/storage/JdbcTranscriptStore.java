package dev.pulsebus.storage;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import dev.pulsebus.event.ChatRef;
import dev.pulsebus.event.Message;
import dev.pulsebus.event.OneBotJson;
import dev.pulsebus.event.Segment;
import dev.pulsebus.transcript.TranscriptRecord;
import dev.pulsebus.transcript.TranscriptStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import javax.sql.DataSource;

/**
 * Transcripts in {@code pulsebus_transcript}: appends are multi-row INSERTs of up to {@link #ROWS_PER_INSERT}
 * rows in one transaction; "last n of a chat" is an index range scan of (chat, seq); retention deletes
 * in chunks of {@link Dialect#DELETE_CHUNK} rows, each its own short transaction, so the writer never
 * waits behind a long delete.
 */
final class JdbcTranscriptStore implements TranscriptStore {

    static final int ROWS_PER_INSERT = 100;
    private static final String COLUMNS =
            "seq, platform, detail_type, chat_id, user_id, time_ms, message_id, message, outbound";
    private static final String CHAT = "platform = ? AND detail_type = ? AND chat_id = ?";

    private final DataSource dataSource;
    private final Dialect dialect;
    private final StorageHealth health;
    /** The chat is known to the caller: only the other columns are read. */
    private static final String LAST = "SELECT seq, user_id, time_ms, message_id, message, outbound"
            + " FROM pulsebus_transcript WHERE " + CHAT + " AND seq < ? ORDER BY seq DESC LIMIT ?";

    /**
     * INSERT statements of 1 to {@link #ROWS_PER_INSERT} rows ({@code [rows]}), made once per store;
     * sessions keep them prepared. A row whose seq is stored already is skipped ({@link Dialect#transcriptConflict}).
     */
    private final String[] inserts = new String[ROWS_PER_INSERT + 1];

    private final SessionPool sessions;

    JdbcTranscriptStore(DataSource dataSource, SessionPool sessions, Dialect dialect, StorageHealth health) {
        this.dataSource = dataSource;
        this.sessions = sessions;
        this.dialect = dialect;
        this.health = health;
        for (int rows = 1; rows <= ROWS_PER_INSERT; rows++) {
            inserts[rows] = insertSql(rows, dialect);
        }
    }

    private static String insertSql(int rows, Dialect dialect) {
        StringBuilder sb = new StringBuilder("INSERT INTO pulsebus_transcript (").append(COLUMNS).append(") VALUES ");
        for (int i = 0; i < rows; i++) {
            sb.append(i == 0 ? "" : ", ").append("(?, ?, ?, ?, ?, ?, ?, ?, ?)");
        }
        return sb.append(dialect.transcriptConflict).toString();
    }

    @Override
    public void append(List<TranscriptRecord> batch) throws SQLException {
        if (batch.isEmpty()) {
            return;
        }
        try {
            health.check(); // a SQLite file deleted while open: what it takes is gone at the next start
        } catch (SQLException e) {
            health.failed(e);
            throw e;
        }
        Session s = sessions.borrow();
        boolean failed = true;
        try {
            Connection c = s.connection;
            c.setAutoCommit(false);
            try {
                int full = batch.size() / ROWS_PER_INSERT;
                if (full > 0) {
                    PreparedStatement ps = s.prepare(inserts[ROWS_PER_INSERT]);
                    for (int chunk = 0; chunk < full; chunk++) {
                        bind(ps, batch, chunk * ROWS_PER_INSERT, ROWS_PER_INSERT);
                        ps.executeUpdate();
                    }
                }
                int rest = batch.size() - full * ROWS_PER_INSERT;
                if (rest > 0) {
                    PreparedStatement last = s.prepare(inserts[rest]);
                    bind(last, batch, full * ROWS_PER_INSERT, rest);
                    last.executeUpdate();
                }
                c.commit();
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            } finally {
                c.setAutoCommit(true);
            }
            failed = false;
            health.succeeded();
        } catch (SQLException e) {
            health.failed(e);
            throw e;
        } finally {
            sessions.release(s, failed);
        }
    }

    private static void bind(PreparedStatement ps, List<TranscriptRecord> batch, int from, int rows) throws SQLException {
        int p = 1;
        for (int i = from; i < from + rows; i++) {
            TranscriptRecord r = batch.get(i);
            ps.setLong(p++, r.seq());
            ps.setString(p++, r.chat().platform());
            ps.setString(p++, r.chat().detailType());
            ps.setString(p++, r.chat().id());
            ps.setString(p++, r.userId());
            ps.setLong(p++, r.time().toEpochMilli());
            ps.setString(p++, r.messageId());
            ps.setString(p++, messageJson(r.message()));
            ps.setBoolean(p++, r.outbound());
        }
    }

    @Override
    public List<TranscriptRecord> last(ChatRef chat, int n, long beforeSeq) throws SQLException {
        if (n <= 0) {
            return List.of();
        }
        List<TranscriptRecord> out = new ArrayList<>(Math.min(n, 1024));
        Session s = sessions.borrow();
        boolean failed = true;
        try {
            PreparedStatement ps = s.prepare(LAST);
            bindChat(ps, chat);
            ps.setLong(4, beforeSeq);
            ps.setInt(5, n);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new TranscriptRecord(rs.getLong(1), chat, rs.getString(2),
                            Instant.ofEpochMilli(rs.getLong(3)), rs.getString(4), messageOf(rs.getString(5)),
                            rs.getBoolean(6)));
                }
            }
            failed = false;
        } catch (SQLException e) {
            health.failed(e);
            throw e;
        } finally {
            sessions.release(s, failed);
        }
        Collections.reverse(out);
        return out;
    }

    @Override
    public long retain(int keepPerChat, Instant cutoff) throws SQLException {
        long deleted = 0;
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            try (PreparedStatement ps = c.prepareStatement(
                    dialect.chunkedDelete("pulsebus_transcript", "seq", "time_ms < ?"))) {
                ps.setLong(1, epochMillis(cutoff));
                deleted += untilDone(ps);
            }
            for (ChatRef over : chatsOver(c, keepPerChat)) {
                long threshold = seqAtRank(c, over, keepPerChat);
                try (PreparedStatement ps = c.prepareStatement(
                        dialect.chunkedDelete("pulsebus_transcript", "seq", CHAT + " AND seq <= ?"))) {
                    bindChat(ps, over);
                    ps.setLong(4, threshold);
                    deleted += untilDone(ps);
                }
            }
        } catch (SQLException e) {
            health.failed(e);
            throw e;
        }
        return deleted;
    }

    /** {@code t} in epoch millis, saturating at the ends of {@code long} (Instant.MAX means "all"). */
    private static long epochMillis(Instant t) {
        try {
            return t.toEpochMilli();
        } catch (ArithmeticException e) {
            return t.isBefore(Instant.EPOCH) ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
    }

    /**
     * A message as stored: a message of one text segment (most chat lines) as a plain JSON string, which
     * OneBot allows and which reads back without building a tree of segments; any other as the array.
     */
    static String messageJson(Message m) {
        if (m.segments().size() == 1 && m.segments().get(0) instanceof Segment.Text t) {
            return quoted(t.text());
        }
        return OneBotJson.write(m);
    }

    /**
     * {@code text} as a JSON string, escaped as Jackson escapes it; most chat lines need no escape and are only
     * put between quotes (an ObjectMapper call per record was some 3 % of a OneBot flood's CPU).
     */
    static String quoted(String text) {
        for (int i = 0, n = text.length(); i < n; i++) {
            char c = text.charAt(i);
            if (c < 0x20 || c == '"' || c == '\\') {
                return '"' + new String(JsonStringEncoder.getInstance().quoteAsString(text)) + '"';
            }
        }
        return '"' + text + '"';
    }

    /** The inverse of {@link #messageJson}: a JSON string without escapes is its own text, no parser needed. */
    static Message messageOf(String json) {
        int n = json.length();
        if (n >= 2 && json.charAt(0) == '"' && json.charAt(n - 1) == '"' && json.indexOf('\\') < 0) {
            return Message.text(json.substring(1, n - 1));
        }
        return OneBotJson.read(json);
    }

    private static void bindChat(PreparedStatement ps, ChatRef chat) throws SQLException {
        ps.setString(1, chat.platform());
        ps.setString(2, chat.detailType());
        ps.setString(3, chat.id());
    }

    private static long untilDone(PreparedStatement chunk) throws SQLException {
        long total = 0;
        int n;
        do {
            n = chunk.executeUpdate();
            total += n;
        } while (n >= Dialect.DELETE_CHUNK);
        return total;
    }

    private static List<ChatRef> chatsOver(Connection c, int keep) throws SQLException {
        List<ChatRef> chats = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT platform, detail_type, chat_id FROM pulsebus_transcript"
                + " GROUP BY platform, detail_type, chat_id HAVING COUNT(*) > ?")) {
            ps.setInt(1, keep);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    chats.add(new ChatRef(rs.getString(1), rs.getString(2), rs.getString(3)));
                }
            }
        }
        return chats;
    }

    /** The seq of the newest record beyond the {@code keep} newest of a chat: it and older ones go. */
    private static long seqAtRank(Connection c, ChatRef chat, int keep) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT seq FROM pulsebus_transcript WHERE " + CHAT
                + " ORDER BY seq DESC LIMIT 1 OFFSET ?")) {
            bindChat(ps, chat);
            ps.setInt(4, keep);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) : Long.MIN_VALUE;
            }
        }
    }

    /** By the chat index: each chat's newest seq is the last entry of its part of it. */
    @Override
    public List<String> chatIds(String platform, String detailType, int limit) throws SQLException {
        List<String> ids = new ArrayList<>();
        Session s = sessions.borrow();
        boolean failed = true;
        try {
            PreparedStatement ps = s.prepare("SELECT chat_id FROM pulsebus_transcript WHERE platform = ? AND"
                    + " detail_type = ? GROUP BY chat_id ORDER BY MAX(seq) DESC LIMIT ?");
            ps.setString(1, platform);
            ps.setString(2, detailType);
            ps.setInt(3, Math.max(0, limit));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    ids.add(rs.getString(1));
                }
            }
            failed = false;
        } catch (SQLException e) {
            health.failed(e);
            throw e;
        } finally {
            sessions.release(s, failed);
        }
        return ids;
    }

    @Override
    public long maxSeq() throws SQLException {
        Session s = null; // a kept session, not a connection closed at once: see Storage.upToDate
        boolean failed = true;
        try {
            s = sessions.borrow();
            try (ResultSet rs = s.prepare("SELECT MAX(seq) FROM pulsebus_transcript").executeQuery()) {
                long max = rs.next() ? rs.getLong(1) : 0;
                failed = false;
                return max;
            }
        } catch (SQLException e) {
            health.failed(e);
            throw e;
        } finally {
            if (s != null) {
                sessions.release(s, failed);
            }
        }
    }
}
