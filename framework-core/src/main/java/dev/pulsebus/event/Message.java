package dev.pulsebus.event;

import java.util.List;

/** A message: its segments in order. Immutable. */
public record Message(List<Segment> segments) {

    public Message {
        segments = List.copyOf(segments);
    }

    public static Message of(Segment... segments) {
        return new Message(List.of(segments));
    }

    /** A message of one text segment. */
    public static Message text(String text) {
        return new Message(List.of(new Segment.Text(text)));
    }

    /** The message as plain text (mentions as {@code @id}, images as {@code [image]}, replies omitted). */
    public String plainText() {
        if (segments.size() == 1) {
            return segments.get(0).plainText();
        }
        StringBuilder sb = new StringBuilder();
        for (Segment s : segments) {
            sb.append(s.plainText());
        }
        return sb.toString();
    }

    /** Whether a segment mentions {@code userId} (or everyone). */
    public boolean mentions(String userId) {
        for (Segment s : segments) {
            if (s instanceof Segment.MentionAll || (s instanceof Segment.Mention m && m.userId().equals(userId))) {
                return true;
            }
        }
        return false;
    }

    /**
     * The text a command is read from: the plain text without the mentions of {@code botId}, leading
     * and trailing spaces removed.
     */
    public String commandText(String botId) {
        if (segments.size() == 1 && segments.get(0) instanceof Segment.Text t) {
            return t.text();
        }
        StringBuilder sb = new StringBuilder();
        for (Segment s : segments) {
            if (!(s instanceof Segment.Mention m && m.userId().equals(botId))) {
                sb.append(s.plainText());
            }
        }
        return sb.toString().strip();
    }
}
