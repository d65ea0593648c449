<%@ page contentType="text/html; charset=UTF-8" %><%
    int n;
    try { n = Integer.parseInt(request.getParameter("page")); } catch (NumberFormatException e) { n = 0; }
    if (n < 1 || n > 3) { response.sendError(404); return; }
    boolean byPrice = "price".equals(request.getParameter("sort"));
%><!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Catalogue, page <%= n %><%= byPrice ? ", by price" : "" %></title></head>
<body><h1>Catalogue, page <%= n %><%= byPrice ? ", by price" : "" %></h1>
<ol>
<% for (int i = 0; i < 5; i++) { int id = byPrice ? n * 5 - i : (n - 1) * 5 + 1 + i; %><li><a href="<%= response.encodeURL("item.jsp?id=" + id) %>">Item <%= id %></a> (<%= 7 * id %> EUR)</li>
<% } %></ol>
<p><% if (n > 1) { %><a href="<%= response.encodeURL("catalog.jsp?page=" + (n - 1)) %>">Previous</a> <% } %><% if (n < 3) { %><a href="<%= response.encodeURL("catalog.jsp?page=" + (n + 1)) %>">Next</a> <% } %>
<a href="<%= response.encodeURL(byPrice ? "catalog.jsp?page=" + n : "catalog.jsp?page=" + n + "&sort=price") %>"><%= byPrice ? "By name" : "By price" %></a>
<a href="<%= response.encodeURL("./") %>">Catalogue</a></p>
</body></html>
