<%@ page contentType="text/html; charset=UTF-8" %><%
    int id;
    try { id = Integer.parseInt(request.getParameter("id")); } catch (NumberFormatException e) { id = 0; }
    if (id < 1 || id > 15) { response.sendError(404); return; }
%><!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Item <%= id %></title></head>
<body><h1>Item <%= id %></h1>
<p>Item <%= id %> costs <%= 7 * id %> EUR.</p>
<p><a href="<%= response.encodeURL("catalog.jsp?page=" + ((id + 4) / 5)) %>">Back to page <%= (id + 4) / 5 %></a>
<a href="<%= response.encodeURL("about.jsp?ref=item" + id) %>">About</a></p>
</body></html>
